// RUN: cann-opt %s | cann-opt | filecheck %s
// Regression test (this was a known bug, now fixed; see below).
// Known dialect bug: TilingAttr({}) prints as `#kernel.tiling<>`, which its parser rejects
// ("identifier expected"), so an empty tiling does not round-trip.  It was fixed when
// TilingAttr.parse_parameters accepts an empty list.

builtin.module attributes {cann.soc_version = "Ascend910B3", t = #kernel.tiling<>} {
}

// CHECK: builtin.module attributes {cann.soc_version = "Ascend910B3", t = #kernel.tiling<>} {
