// RUN: rm -rf %t && mkdir -p %t
// RUN: cann-compile --model=%S/../../../examples/conv_block.pbtxt --framework=3 --soc_version=Ascend910B3 --output=%t/m --layout-report=- 2>&1 | filecheck %s
// RUN: cann-compile --model=%S/../../../examples/conv_block.pbtxt --framework=3 --soc_version=Ascend910B3 --output=%t/m --layout-report=%t/layouts.txt --print-pipeline | filecheck %s --check-prefix=SPEC
// RUN: filecheck %s < %t/layouts.txt

// cann-compile --layout-report: assign-layouts' list of the TransData left (report= of the
// pass), here the conv block's input and output; then cann-to-kernel's list of those it folded
// into a kernel's DMA (layout_report= of that pass): the output into the conv's stores, the input
// into its GM -> L1 loads.  The conv (C_in = 3) takes the small-C_in layout (compiler/target/c04.py):
// its input converts to NC1HWC0_C04, a format only the cube op reads.

// CHECK:      layout report: 2 TransData, {{[0-9]+}} bytes moved
// CHECK-NEXT: TransData NHWC -> NC1HWC0_C04 [1, 8, 8, 3] at '{{.*}}': NC1HWC0_C04 operand of a cube op (not a constant, so converted at run time)
// CHECK-NEXT: TransData NC1HWC0 -> NHWC [1, 8, 8, 4] at '{{.*}}': graph output
// CHECK-NEXT: after cann-to-kernel: 2 TransData folded into kernels' DMA
// CHECK-NEXT: TransData NC1HWC0 -> NHWC [1, 8, 8, 4] at '{{.*}}': folded into the stores of kernel.cube '{{.*}}' (no launch)
// CHECK-NEXT: TransData NHWC -> NC1HWC0_C04 [1, 8, 8, 3] at '{{.*}}': folded into the GM -> L1 loads of kernel.cube '{{.*}}' (no launch)

// SPEC: assign-layouts{report="{{.*}}layouts.txt"},pack-launches{{{.*}}},cann-to-kernel{{{.*}}layout_report="{{.*}}layouts.txt"}
