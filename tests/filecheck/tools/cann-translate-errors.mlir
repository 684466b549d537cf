// cann-translate errors: one line per problem (nothing else on stderr), every problem of the
// graph, exit code 1, no traceback, and no output file left behind.

// Sigmoid and Tanh were unsupported; they are typed tf ops now (issue 3), so this graph imports.
// RUN: cann-translate --import-graphdef %S/Inputs/unsupported_ops.pbtxt 2>&1 | filecheck %s --check-prefix=UNSUP
// UNSUP-NOT:  error
// UNSUP:      tf.Sigmoid
// UNSUP:      tf.Tanh

// RUN: not cann-translate --import-graphdef %S/Inputs/bad_graph.pbtxt 2>&1 | filecheck %s --check-prefix=BAD
// BAD-NOT:  Traceback
// BAD:      bad_graph.pbtxt: error: node 'r' (Relu): input 'missing:0' names no node of the graph
// BAD-NEXT: bad_graph.pbtxt: error: node 'r' (Identity): duplicate node name (first defined as a Relu)
// BAD-NOT:  {{.}}

// RUN: rm -f %t.mlir
// RUN: not cann-translate --import-graphdef %S/Inputs/not_a_graphdef.pbtxt -o %t.mlir 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not test -e %t.mlir
// ERR-NOT: Traceback
// ERR:     not_a_graphdef.pbtxt: error: not a GraphDef (binary or text protobuf)
// ERR-NOT: {{.}}

// RUN: not cann-translate --import-graphdef %S/Inputs/no_such_file.pb 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: no_such_file.pb: error: no such file

// RUN: not cann-translate %S/Inputs/conv_block.pbtxt 2>&1 | filecheck %s --check-prefix=USAGE
// USAGE: cann-translate: error: one of the arguments --import-graphdef --export-graphdef is required
