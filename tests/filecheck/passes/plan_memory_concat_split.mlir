// RUN: rm -rf %t && mkdir -p %t
// RUN: cann-compile --model=%S/Inputs/split_activations_concat.pbtxt --framework=3 --soc_version=Ascend910B3 --output=%t/m --report 2>&1 | filecheck %s
// RUN: cann-run %t/m.om --compare-with %S/Inputs/split_activations_concat.pbtxt | filecheck %s --check-prefix=OM

// Regression (fuzz repro gd-memplan-unaligned-concat): x [2, 24] -> Split(axis 0) -> Sigmoid /
// Tanh -> ConcatV2(axis 1) [1, 48] -> Mul.  Tanh writes its slab at byte 96 of the concat's
// buffer: a concat slab starts on a 32-byte boundary, not a 512-byte one, and the checker that
// re-reads the plan from the IR must accept it (it used to report "not 512-byte aligned").
// The concat moves no data, and the whole model runs in one 512 B buffer; Sigmoid and Tanh are
// independent and share one launch (pack-launches): 4 launches, not 6.

// CHECK: m.om: {{.*}} arena 512 B (live-set bound 512 B
// CHECK: model: 4 kernel launches
// OM:    output: max_abs={{.*}} OK
