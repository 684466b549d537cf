// RUN: not cann-opt --tf-to-cann %s 2>&1 | filecheck %s

// The error messages of the mapping table's builders and of the engine that
// tf_to_cann_errors.mlir and tf_to_cann_table_errors.mlir leave out, all in one run, in source
// order: forwarding, BN side outputs in use, Einsum's shape and label errors, SAME padding with
// dynamic spatial dimensions, non-scalar concat/gather axes, dynamic Shape, reduction axes out of
// range, PadV2/Fill/Range/Split/SplitV/Select input errors, a control-flow function that does
// not exist, and a call whose arity differs from its callee's.
// CHECK: tf_to_cann_table_errors_more.mlir:[[# @LINE + 30]]:{{[0-9]+}}: error: tf.IdentityN cannot be legalized: forwarding needs one operand per result [node 'identity_n']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 30]]:{{[0-9]+}}: error: tf.FusedBatchNormV3 cannot be legalized: BN side outputs (mean/variance) must be unused [node 'bn_side']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.Einsum cannot be legalized: Einsum 'abc,cd->abd': labels do not match the input ranks [node 'einsum_rank']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.Einsum cannot be legalized: Einsum 'bxyj,bjk->bxyk': reshaping to ?x?x3 needs more than one dynamic (?) dimension inferred [node 'einsum_dynamic']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.Einsum cannot be legalized: Einsum 'ii,ij->ij': repeated labels (traces) are not supported [node 'einsum_trace']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.Einsum cannot be legalized: Einsum 'ij,kl->ik': labels summed in one input only are not supported [node 'einsum_summed']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.Einsum cannot be legalized: Einsum 'ij,ij,ij->ij': only two-operand equations are supported [node 'einsum_three']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.DepthwiseConv2dNative cannot be legalized: SAME padding with a stride > 1 needs static spatial dimensions; got 1x?x8x3 [node 'depthwise_dynamic']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.ConcatV2 cannot be legalized: the concat axis must be a scalar [node 'concat_axes']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.GatherV2 cannot be legalized: input 2 (axis) must be a scalar [node 'gather_axes']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.Slice cannot be legalized: input 2 (size) must be a constant [node 'slice_data_size']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.Sum cannot be legalized: axes [9] are out of range for rank 2 [node 'sum_axis']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.PadV2 cannot be legalized: input 2 (constant_values) must be a scalar [node 'padv2_vector']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.PadV2 cannot be legalized: input 2 (constant_values) must be a constant [node 'padv2_dynamic']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.Fill cannot be legalized: input 0 (dims) must be a constant [node 'fill_dims']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.Range cannot be legalized: delta must be non-zero [node 'range_delta']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.Split cannot be legalized: axis 9 is out of range for rank 2 [node 'split_axis']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.SplitV cannot be legalized: at most one size_splits value may be -1 [node 'splitv_two_minus_one']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.Select cannot be legalized: the condition's length 3 differs from x's first dimension 2 [node 'select_length']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.If cannot be legalized: then_branch @missing is not a function of the module [node 'if_missing']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.Case cannot be legalized: attribute 'branches' must be a non-empty list of functions [node 'case_empty']
// CHECK-NEXT: tf_to_cann_table_errors_more.mlir:[[# @LINE + 31]]:{{[0-9]+}}: error: tf.PartitionedCall cannot be legalized: f @one_arg takes 1 arguments, the call passes 2 [node 'call_arity']
// CHECK-NOT: error
func.func @main(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %d: tensor<?x3xf32>, %x4: tensor<1x?x8x3xf32>, %w: tensor<3x3x3x1xf32>, %i: tensor<2xi32>, %c: tensor<3xi1>, %p: tensor<i1>, %n: tensor<2x2xi32>, %d4: tensor<?x?x2x3xf32>, %d3: tensor<?x3x2xf32>) {
  %ax2 = "tf.Const"() {value = dense<[0, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %ax9 = "tf.Const"() {value = dense<9> : tensor<i32>} : () -> tensor<i32>
  %pads = "tf.Const"() {value = dense<[[0, 1], [1, 0]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %two = "tf.Const"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %m1 = "tf.Const"() {value = dense<[-1, -1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %z = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %0:2 = "tf.IdentityN"(%x) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) loc("identity_n")
  %y, %bm, %bv, %r1, %r2, %r3 = "tf.FusedBatchNormV3"(%x, %s, %s, %s, %s) {epsilon = 1.0e-03 : f32, data_format = "NHWC", is_training = false} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<*xf32>) loc("bn_side")
  %1 = "tf.Neg"(%bm) : (tensor<3xf32>) -> tensor<3xf32> loc("uses_mean")
  %2 = "tf.Einsum"(%x, %x) {equation = "abc,cd->abd"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2x3xf32> loc("einsum_rank")
  %3 = "tf.Einsum"(%d4, %d3) {equation = "bxyj,bjk->bxyk"} : (tensor<?x?x2x3xf32>, tensor<?x3x2xf32>) -> tensor<?x?x2x2xf32> loc("einsum_dynamic")
  %4 = "tf.Einsum"(%x, %x) {equation = "ii,ij->ij"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("einsum_trace")
  %5 = "tf.Einsum"(%x, %x) {equation = "ij,kl->ik"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32> loc("einsum_summed")
  %6 = "tf.Einsum"(%x, %x, %x) {equation = "ij,ij,ij->ij"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("einsum_three")
  %7 = "tf.DepthwiseConv2dNative"(%x4, %w) {strides = array<i64: 1, 2, 2, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x?x8x3xf32>, tensor<3x3x3x1xf32>) -> tensor<1x?x4x3xf32> loc("depthwise_dynamic")
  %8 = "tf.ConcatV2"(%x, %x, %ax2) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xi32>) -> tensor<4x3xf32> loc("concat_axes")
  %9 = "tf.GatherV2"(%x, %i, %ax2) {batch_dims = 0 : i64} : (tensor<2x3xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x3xf32> loc("gather_axes")
  %10 = "tf.Slice"(%x, %ax2, %i) : (tensor<2x3xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x?xf32> loc("slice_data_size")
  %11 = "tf.Sum"(%x, %ax9) {keep_dims = false} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2xf32> loc("sum_axis")
  %17 = "tf.PadV2"(%x, %pads, %two) : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<2xf32>) -> tensor<3x4xf32> loc("padv2_vector")
  %18 = "tf.PadV2"(%x, %n, %s) : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<3xf32>) -> tensor<?x?xf32> loc("padv2_dynamic")
  %20 = "tf.Fill"(%i, %z) : (tensor<2xi32>, tensor<i32>) -> tensor<?x?xi32> loc("fill_dims")
  %21 = "tf.Range"(%z, %ax9, %z) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32> loc("range_delta")
  %22:2 = "tf.Split"(%ax9, %x) {num_split = 2 : i64} : (tensor<i32>, tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>) loc("split_axis")
  %23:2 = "tf.SplitV"(%x, %m1, %z) {num_split = 2 : i64} : (tensor<2x3xf32>, tensor<2xi32>, tensor<i32>) -> (tensor<1x3xf32>, tensor<1x3xf32>) loc("splitv_two_minus_one")
  %24 = "tf.Select"(%c, %x, %x) : (tensor<3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("select_length")
  %25 = "tf.If"(%p, %x) {then_branch = @missing, else_branch = @missing} : (tensor<i1>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("if_missing")
  %26 = "tf.Case"(%z, %x) {branches = []} : (tensor<i32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("case_empty")
  %27 = "tf.PartitionedCall"(%x, %x) {f = @one_arg} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("call_arity")
  func.return
}
func.func private @one_arg(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  func.return %a : tensor<2x3xf32>
}
