// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s

// Global average pooling on NC1HWC0: rows (n, c1) x H*W x C0 in UB chunks (112*112 positions do
// not fit at once), summed and accumulated, scaled by 1/(H*W); the [N, C] result is written as
// FRACTAL_NZ (C1 x C0 of the input are K1 x C0 of NZ), ready for a matmul.  Here it is the
// function's result: the NZ -> ND TransData folds into that nz_rows store (view to_origin).
// CHECK-LABEL: func.func @gap
// CHECK-NOT: kernel.transdata
// CHECK: kernel.vec_kernel {{.*}}kind = "ReduceMeanD"{{.*}}reduceLen = 12544, chunkLen = 768
// CHECK: kernel.vec {fn = "Fill", attrs = {fill = 0 : i64}} : () -> memref<1x16xf32, #kernel.space<UB>>
// CHECK: kernel.for
// CHECK-NEXT: ^bb{{[0-9]+}}(%{{.*}}: index):
// CHECK-NEXT: kernel.load {{.*}}view = "chunk_rows"{{.*}} -> memref<1x768x16xf32, #kernel.space<UB>>
// CHECK-NEXT: kernel.vec {{.*}}fn = "RowSum"{{.*}} -> memref<1x16xf32, #kernel.space<UB>>
// CHECK-NEXT: kernel.accumulate {{.*}}fn = "Add"
// CHECK: kernel.vec {{.*}}fn = "Muls", attrs = {value = 7.97193861e-05 : f32}
// CHECK-NEXT: kernel.store {{.*}}view = "to_origin", params = {c1 = 2 : i64, src_shape = array<i64: 2, 1, 16, 16>}, src_view = "nz_rows", src_format = "FRACTAL_NZ", dst_format = "ND"}{{.*}}memref<1x32xf32, #kernel.space<GM>>
// CHECK-NOT: kernel.transdata
// CHECK: func.return
func.func @gap(%x: tensor<1x112x112x32xf32>) -> tensor<1x32xf32> {
  %w = cann.Const dense<0.5> : tensor<1x1x32x32xf32>
  %c = cann.FusedConv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x112x112x32xf32>, tensor<1x1x32x32xf32>) -> tensor<1x112x112x32xf32>
  %y = cann.ReduceMeanD %c {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<1x112x112x32xf32>) -> tensor<1x32xf32>
  func.return %y : tensor<1x32xf32>
}

// Squeeze-excite (EfficientNet): Mean without keep_dims then Reshape to [N, 1, 1, C] becomes the
// keep_dims reduction writing NC1HWC0 (N, C1, 1, 1, C0); no Reshape, no TransData in between;
// the one at the output folds into the gating Mul's store (view to_origin), the input's into
// the conv's loads (FoldInputTransData).
// CHECK-LABEL: func.func @squeeze_excite
// CHECK-NOT: kernel.transdata
// CHECK: kernel.vec_kernel {{.*}}kind = "ReduceMeanD"{{.*}} -> tensor<1x2x1x1x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 1, 1, 32]>>
// CHECK: kernel.store {{.*}}view = "rows"
// CHECK-NOT: kernel.view
// CHECK: kernel.cube {{.*}}kind = "Conv2D"
// CHECK: kernel.vec_kernel {{.*}}kind = "Elementwise"{{.*}} -> tensor<1x8x8x32xf32> {
// CHECK: kernel.vec {{.*}}fn = "Mul"
// CHECK-NEXT: kernel.store {{.*}}view = "to_origin", params = {src_shape = array<i64: 1, 2, 8, 8, 16>}, src_view = "flat", src_format = "NC1HWC0", dst_format = "NHWC"}
// CHECK-NOT: kernel.transdata
// CHECK: func.return
func.func @squeeze_excite(%x: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %w = cann.Const dense<0.5> : tensor<1x1x32x32xf32>
  %c = cann.FusedConv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Swish"} : (tensor<1x8x8x32xf32>, tensor<1x1x32x32xf32>) -> tensor<1x8x8x32xf32>
  %m = cann.ReduceMeanD %c {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<1x8x8x32xf32>) -> tensor<1x32xf32>
  %r = cann.Reshape %m {shape = array<i64: 1, 1, 1, 32>} : (tensor<1x32xf32>) -> tensor<1x1x1x32xf32>
  %w2 = cann.Const dense<0.25> : tensor<1x1x32x32xf32>
  %s = cann.FusedConv2D %r, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Sigmoid"} : (tensor<1x1x1x32xf32>, tensor<1x1x32x32xf32>) -> tensor<1x1x1x32xf32>
  %y = cann.Mul %c, %s : (tensor<1x8x8x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x8x8x32xf32>
  func.return %y : tensor<1x8x8x32xf32>
}

// Zero padding of H and W on NC1HWC0 (ResNet's conv1_pad, between two convs): rows of the padded
// result moved from the input, zero outside it.
// CHECK-LABEL: func.func @pad
// CHECK: kernel.vec_kernel {{.*}}kind = "PadD"
// CHECK: kernel.load {{.*}}view = "pad_rows", params = {pads = array<i64: 0, 0, 0, 0, 3, 3, 3, 3, 0, 0>, shape = array<i64: 1, 1, 14, 14, 16>}
// CHECK-NEXT: kernel.store {{.*}}view = "rows"
func.func @pad(%x: tensor<1x8x8x3xf32>) -> tensor<1x14x14x16xf32> {
  %w = cann.Const dense<0.5> : tensor<1x1x3x16xf32>
  %c = cann.FusedConv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x3xf32>, tensor<1x1x3x16xf32>) -> tensor<1x8x8x16xf32>
  %p = cann.PadD %c {paddings = array<i64: 0, 0, 3, 3, 3, 3, 0, 0>} : (tensor<1x8x8x16xf32>) -> tensor<1x14x14x16xf32>
  %w2 = cann.Const dense<0.25> : tensor<1x1x16x16xf32>
  %y = cann.FusedConv2D %p, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x14x14x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x14x14x16xf32>
  func.return %y : tensor<1x14x14x16xf32>
}
