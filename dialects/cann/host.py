"""Host calls: ops that run on the host CPU.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DictionaryAttr, StringAttr, TensorType
from xdsl.irdl import irdl_op_definition, prop_def, traits_def, var_operand_def, var_result_def
from xdsl.utils.exceptions import VerifyException

from dialects.cann.base import (
    CannOp,
)
from dialects.op_kinds import FixedPrecision, Opaque


@irdl_op_definition
class HostCallOp(CannOp):
    """A TensorFlow op the device cannot run, executed on the host CPU (--allow-host-fallback).

    `op_type` is the TF op type, `tf_attrs` its TensorFlow attributes (under TF's names)."""

    name = "cann.HostCall"
    traits = traits_def(Opaque(), FixedPrecision())
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    op_type = prop_def(StringAttr)
    tf_attrs = prop_def(DictionaryAttr)

    def verify_op(self) -> None:
        if not self.op_type.data:
            raise VerifyException(f"{self.name}: op_type must name a TensorFlow op")

