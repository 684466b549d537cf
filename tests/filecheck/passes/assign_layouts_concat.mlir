// RUN: cann-opt --assign-layouts %s | filecheck %s
// RUN: cann-opt --assign-layouts %s | cann-opt | filecheck %s
// RUN: cann-opt --assign-layouts='report=-' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=REPORT
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL

// A dense block's concat between convs: conv (24 channels) and conv (12 channels) joined over
// C, Relu, conv.  The global assignment runs the concat and the Relu on NC1HWC0 (the concat's
// second input starts at channel 24, off the C0 = 16 grid: its kernel stores it lane by lane),
// so the only TransData left are the graph's input and output.

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @main(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x16xf32> {
    %w0 = cann.Const dense<0.25> : tensor<1x1x8x24xf32>
    %w1 = cann.Const dense<0.5> : tensor<1x1x24x12xf32>
    %w2 = cann.Const dense<0.125> : tensor<1x1x36x16xf32>
    %a = cann.Conv2D %x, %w0 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x8xf32>, tensor<1x1x8x24xf32>) -> tensor<1x4x4x24xf32>
    %b = cann.Conv2D %a, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x24xf32>, tensor<1x1x24x12xf32>) -> tensor<1x4x4x12xf32>
    %c = cann.ConcatV2D %a, %b {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x4x4x24xf32>, tensor<1x4x4x12xf32>) -> tensor<1x4x4x36xf32>
    %r = cann.Relu %c : (tensor<1x4x4x36xf32>) -> tensor<1x4x4x36xf32>
    %y = cann.Conv2D %r, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x36xf32>, tensor<1x1x36x16xf32>) -> tensor<1x4x4x16xf32>
    func.return %y : tensor<1x4x4x16xf32>
  }
}

// CHECK:      cann.TransData %x {{.*}}dst_format = "NC1HWC0"
// CHECK-NOT:  cann.TransData
// CHECK:      cann.ConcatV2D {{.*}} : (tensor<1x2x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 24]>>, tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 12]>>) -> tensor<1x3x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 36]>>
// CHECK-NEXT: cann.Relu {{.*}} -> tensor<1x3x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 36]>>
// CHECK-NOT:  cann.TransData
// CHECK:      cann.Conv2D
// CHECK-NEXT: cann.TransData {{.*}}src_format = "NC1HWC0", dst_format = "NHWC"
// CHECK-NEXT: func.return

// REPORT:      layout report: 2 TransData, {{[0-9]+}} bytes moved
// REPORT-NEXT: TransData NHWC -> NC1HWC0 [1, 4, 4, 8]: graph input
// REPORT-NEXT: TransData NC1HWC0 -> NHWC [1, 4, 4, 16]: graph output

// KERNEL:     kind = "ConcatV2D"
// KERNEL:     kernel.store {{.*}} {view = "concat_c0", params = {offset = 0 : i64, channels = 24 : i64, c1 = 2 : i64, hw = 16 : i64, last = 0 : i64}}
// KERNEL:     kernel.store {{.*}} {view = "concat_c0", params = {offset = 24 : i64, channels = 12 : i64, c1 = 1 : i64, hw = 16 : i64, last = 1 : i64}}
