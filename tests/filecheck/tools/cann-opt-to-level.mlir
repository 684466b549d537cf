// RUN: cann-opt --to-level=fused --print-pipeline %s -o /dev/null 2>&1 | filecheck %s --check-prefix=FUSED
// RUN: cann-opt --to-level=kernel --soc-version=Ascend910A --precision-mode=allow_mix_precision --fusion-switch-file=%S/Inputs/none.cfg --print-pipeline %s -o /dev/null 2>&1 | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --tf-to-cann --allow-host-fallback --fuse --fusion-report=- --print-pipeline %s -o /dev/null 2>&1 | filecheck %s --check-prefix=FLAGS
// RUN: cann-opt --to-level=cann %s | filecheck %s --check-prefix=IR
// RUN: not cann-opt --to-level=kernel --soc-version=Ascend999 %s 2>&1 | filecheck %s --check-prefix=BADCHIP

// cann-opt's level flags build cann-compile's pipeline (tools/driver/pipelines.py); --print-pipeline
// prints the -p spec that runs, driver options included as pass options.
// FUSED: tf-to-cann,cann-cleanup,recompose-rnn,fuse{fold_constants=false soc_version="Ascend910B3"}
// KERNEL: tf-to-cann,cann-cleanup,recompose-rnn,fuse{switch_file="{{.*}}none.cfg" fold_constants=false soc_version="Ascend910A"},set-precision{mode="allow_mix_precision"},cann-cleanup,align-concat-slabs,assign-layouts,pack-launches{soc_version="Ascend910A" switch_file="{{.*}}none.cfg"},cann-to-kernel{soc_version="Ascend910A"}
// FLAGS: tf-to-cann{allow_host_fallback=true},fuse{report="-"}
// IR: cann.Relu
// IR-NOT: tf.
// BADCHIP: cann-opt: error: --soc-version: unknown soc version 'Ascend999'
func.func @main(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = "tf.Relu"(%x) : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %0 : tensor<1x4xf32>
}
