"""Recurrent layers: DynamicRNN (LSTM) and DynamicGRUV2 (GRU).
"""

from __future__ import annotations

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from dialects.cann.base import (
    CannOp,
    _check_result_shape,
    _flag,
    _fmt_shape,
    _oshape,
    _shapes_match,
)
from dialects.cann.data_movement import (
    InplaceUpdateOp,
)
from dialects.common import check_one_of, check_same_element_type, enum_prop, string_enum_attr
from dialects.layouts import RunsOn
from dialects.op_kinds import Cube

# === Recurrent layers (issue 13): CANN's fused recurrent operators, InplaceUpdate ==============
#
# What these ops rely on (CANN's op proto, rnn.h: REG_OP(DynamicRNN), REG_OP(DynamicRNNV2),
# REG_OP(DynamicGRUV2), as vendored e.g. in mindspore-ai/akg third_party/fwkacllib/inc/ops/rnn.h;
# the formulas of MindSpore's ops.DynamicRNN / ops.DynamicGRUV2 documentation; the weight layout
# and gate offsets of cann-ops src/rnn/dynamic_rnn/op_kernel/LstmFP32.cpp):
# - DynamicRNN(x, w, b, seq_length?, init_h?, init_c?, wci?, wcf?, wco?, mask?) -> y, output_h,
#   output_c, i, j, f, o, tanhc; x [num_step, batch, input_size] (time_major), w
#   [input_size + hidden_size, 4 * hidden_size] (the input rows, then the hidden rows), b
#   [4 * hidden_size]; gate_order "ijfo" (i, j = the cell candidate, f, o) or "ifjo" (the
#   order of a Keras LSTM kernel); forget_bias is added to f's pre-activation; y = output_h =
#   h of every step [num_step, batch, hidden_size] (num_proj = 0), output_c = c of every step.
#   direction: UNIDIRECTIONAL (t = 0 .. num_step-1) or REDIRECTIONAL (the backward layer: t =
#   num_step-1 .. 0, y[t] still the output at input step t).  rnn.h's comment says only
#   UNIDIRECTIONAL, but CANN's own graph fusion pass emits the backward one
#   (ops/built-in/fusion_pass/graph_fusion/ai_core/dynamic_rnn_fusion_pass.cc:
#   "DynamicRNN(BIDIRECTIONAL) --> split + [DynamicRNN + DynamicRNN(REDIRECTIONAL)] + concat");
#   DynamicGRUV2's comment lists both ("Support UNIDIRECTIONAL and REDIRECTIONAL"), and CANN's
#   Ascend C DynamicRNN kernel (cann-ops src/rnn/dynamic_rnn) runs direction 1 from step
#   timeStep - 1 - tIdx.  BIDIRECTIONAL
#   is that fusion pass's input, split into the two directions before any kernel: not represented
#   (a bidirectional layer is the two ops, one launch each).
# - DynamicGRUV2(x, weight_input, weight_hidden, bias_input?, bias_hidden?, seq_length?,
#   init_h?) -> y, output_h, update, reset, new, hidden_new; weight_input [input_size,
#   3 * hidden_size], weight_hidden [hidden_size, 3 * hidden_size], gate_order "zrh" (the
#   order of a Keras GRU kernel) or "rzh"; reset_after ("whether to apply reset gate after
#   matrix multiplication", rnn.h) true: n = tanh(W_in x + b_in + r * (W_hn h + b_hn)); false
#   (Keras's GRU(reset_after=False)): n = tanh(W_in x + b_in + W_hn (r * h) + b_hn);
#   h' = (1 - z) * n + z * h.
# Only the inference outputs are represented (is_training = false: CANN writes i, j, f, o,
# tanhc / update, reset, new, hidden_new only for training), and no peephole or mask operands.
# init_h / init_c are required here: [1, batch, hidden] for DynamicRNN, [batch, hidden] for
# DynamicGRUV2 (MindSpore's shapes).  seq_length (optional; here the last operand, after init_h
# / init_c, not between b and init_h as in rnn.h) is what CANN's Ascend C DynamicRNN kernel
# reads: a float mask [num_step, batch, hidden] (cann-ops src/rnn/dynamic_rnn: seqLengthGm of
# timeStep * batch * hiddenSize elements; per step c = c_prev + (c_new - c_prev) * m,
# output_h = h = h_prev + (h_new - h_prev) * m, y = h_new * m): a masked step keeps the
# state and outputs 0 in y.  Without it y and output_h are the same.
# Semantics: compiler/interpreters/recurrent.py; recomposition from Keras's While loop:
# compiler/transforms/recurrent.py; lowering: compiler/conversions/cann_to_kernel/recurrent.py.

class RnnDirection(StrEnum):
    """UNIDIRECTIONAL (t = 0 .. num_step-1) or REDIRECTIONAL (the backward layer)."""

    UNIDIRECTIONAL = "UNIDIRECTIONAL"
    REDIRECTIONAL = "REDIRECTIONAL"


#: `direction = "UNIDIRECTIONAL"`
RnnDirectionAttr = string_enum_attr("cann.rnn_direction", RnnDirection)


class RnnCellType(StrEnum):
    """DynamicRNN's cell_type: LSTM (the only one rnn.h's DynamicRNN takes)."""

    LSTM = "LSTM"


#: `cell_type = "LSTM"`
RnnCellTypeAttr = string_enum_attr("cann.rnn_cell_type", RnnCellType)


class RnnActivation(StrEnum):
    """The cell activation of a recurrent op (rnn.h's `activation`; each op allows its subset)."""

    tanh = "tanh"
    relu = "relu"


#: `activation = "tanh"`
RnnActivationAttr = string_enum_attr("cann.rnn_activation", RnnActivation)


class LstmGateOrder(StrEnum):
    """The order of DynamicRNN's four gates in w and b (i, j = the cell candidate, f, o)."""

    ijfo = "ijfo"
    ifjo = "ifjo"


#: `gate_order = "ifjo"`
LstmGateOrderAttr = string_enum_attr("cann.lstm_gate_order", LstmGateOrder)


class GruGateOrder(StrEnum):
    """The order of DynamicGRUV2's three gates (z update, r reset, h candidate)."""

    zrh = "zrh"
    rzh = "rzh"


#: `gate_order = "zrh"`
GruGateOrderAttr = string_enum_attr("cann.gru_gate_order", GruGateOrder)


RNN_ATTRS: list[type[Attribute]] = [RnnDirectionAttr, RnnCellTypeAttr, RnnActivationAttr, LstmGateOrderAttr,
             GruGateOrderAttr]


def is_backward(op) -> bool:
    """Whether a recurrent op runs its steps from the last to the first (REDIRECTIONAL)."""
    return op.direction.data == RnnDirection.REDIRECTIONAL




def _check_rnn_common(op, x, hidden: int, gates: int, w_shapes) -> tuple[int, int, int]:
    n = op.name
    xs = _oshape(x)
    if len(xs) != 3:
        raise VerifyException(f"{n}: x must be [num_step, batch, input_size], got {_fmt_shape(xs)}")
    t, b, i = xs
    for what, v, want in w_shapes(i):
        if not _shapes_match(_oshape(v), want):
            raise VerifyException(f"{n}: {what} must be {_fmt_shape(want)}, got "
                                  f"{_fmt_shape(_oshape(v))}")
    check_one_of(n, "activation", op.activation, (RnnActivation.tanh,))
    if not _flag(op.time_major):
        raise VerifyException(f"{n}: only time_major = true (x as [num_step, batch, input_size]) "
                              "is represented")
    for r in op.results:
        _check_result_shape(n, (t, b, hidden), _oshape(r))
    check_same_element_type(n, x.type, *(r.type for r in op.results))
    if op.seq_length is not None:
        if not _shapes_match(_oshape(op.seq_length), (t, b, hidden)):
            raise VerifyException(f"{n}: seq_length must be {_fmt_shape((t, b, hidden))} (a 0/1 "
                                  f"mask per step), got {_fmt_shape(_oshape(op.seq_length))}")
        check_same_element_type(n, x.type, op.seq_length.type)
    return t, b, i




@irdl_op_definition
class DynamicRNNOp(CannOp):
    """CANN's DynamicRNN (an LSTM layer over all time steps, one kernel): see the section note."""

    name = "cann.DynamicRNN"
    x = operand_def(TensorType)
    w = operand_def(TensorType)
    b = operand_def(TensorType)
    init_h = operand_def(TensorType)
    init_c = operand_def(TensorType)
    seq_length = opt_operand_def(TensorType)
    y = result_def(TensorType)
    output_h = result_def(TensorType)
    output_c = result_def(TensorType)
    cell_type = enum_prop(RnnCellTypeAttr)
    direction = enum_prop(RnnDirectionAttr)
    time_major = prop_def(IntegerAttr)
    activation = enum_prop(RnnActivationAttr)
    forget_bias = prop_def(FloatAttr)
    gate_order = enum_prop(LstmGateOrderAttr)
    traits = traits_def(Pure(), Cube(), RunsOn())

    def hidden_size(self) -> int:
        return _oshape(self.w)[1] // 4

    def verify_op(self) -> None:
        n = self.name
        ws = _oshape(self.w)
        if len(ws) != 2 or ws[1] % 4:
            raise VerifyException(f"{n}: w must be [input_size + hidden_size, 4 * hidden_size], "
                                  f"got {_fmt_shape(ws)}")
        h = ws[1] // 4
        b = _oshape(self.x)[1] if len(_oshape(self.x)) == 3 else -1
        _check_rnn_common(self, self.x, h, 4, lambda i: (
            ("w", self.w, (i + h, 4 * h)), ("b", self.b, (4 * h,)),
            ("init_h", self.init_h, (1, b, h)), ("init_c", self.init_c, (1, b, h))))




@irdl_op_definition
class DynamicGRUV2Op(CannOp):
    """CANN's DynamicGRUV2 (a GRU layer over all time steps, one kernel): see the section note."""

    name = "cann.DynamicGRUV2"
    x = operand_def(TensorType)
    weight_input = operand_def(TensorType)
    weight_hidden = operand_def(TensorType)
    bias_input = operand_def(TensorType)
    bias_hidden = operand_def(TensorType)
    init_h = operand_def(TensorType)
    seq_length = opt_operand_def(TensorType)
    y = result_def(TensorType)
    output_h = result_def(TensorType)
    direction = enum_prop(RnnDirectionAttr)
    time_major = prop_def(IntegerAttr)
    activation = enum_prop(RnnActivationAttr)
    gate_order = enum_prop(GruGateOrderAttr)
    reset_after = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Cube(), RunsOn())

    def hidden_size(self) -> int:
        return _oshape(self.weight_hidden)[0]

    def verify_op(self) -> None:
        n = self.name
        hs = _oshape(self.weight_hidden)
        if len(hs) != 2 or hs[1] != 3 * hs[0]:
            raise VerifyException(f"{n}: weight_hidden must be [hidden_size, 3 * hidden_size], "
                                  f"got {_fmt_shape(hs)}")
        h = hs[0]
        b = _oshape(self.x)[1] if len(_oshape(self.x)) == 3 else -1
        _check_rnn_common(self, self.x, h, 3, lambda i: (
            ("weight_input", self.weight_input, (i, 3 * h)),
            ("bias_input", self.bias_input, (3 * h,)), ("bias_hidden", self.bias_hidden, (3 * h,)),
            ("init_h", self.init_h, (b, h))))




@irdl_op_definition
class TanhRNNOp(CannOp):
    """A plain (Elman / Keras SimpleRNN) recurrent layer over all time steps:
    h_t = activation(x_t W_x + h_{t-1} W_h + b), y[t] = h_t; x [T, B, I] (time major), w_x
    [I, H], w_h [H, H], b [H], init_h [B, H]; activation "tanh" or "relu".

    NOT a CANN library operator: this project's own op, lowered to this project's own recurrent
    kernel (compiler/conversions/cann_to_kernel/recurrent.py, the LSTM kernel's machinery).
    CANN's op proto (rnn.h) has REG_OP(RNN) and REG_OP(BasicRNNCell), Caffe's RNN: float16 x and
    weights only, an output projection o_t = tanh(W_ho h_t + b_o) besides h_t, and marked
    "Warning: THIS FUNCTION IS EXPERIMENTAL. Please do not use."; DynamicRNN / V2 / V3 take only
    cell_type LSTM.  None computes a float32 SimpleRNN."""

    name = "cann.TanhRNN"
    x = operand_def(TensorType)
    w_x = operand_def(TensorType)
    w_h = operand_def(TensorType)
    b = operand_def(TensorType)
    init_h = operand_def(TensorType)
    y = result_def(TensorType)
    direction = enum_prop(RnnDirectionAttr)
    time_major = prop_def(IntegerAttr)
    activation = enum_prop(RnnActivationAttr)
    traits = traits_def(Pure(), Cube(), RunsOn())

    def hidden_size(self) -> int:
        return _oshape(self.w_h)[0]

    def verify_op(self) -> None:
        n = self.name
        hs = _oshape(self.w_h)
        if len(hs) != 2 or hs[0] != hs[1]:
            raise VerifyException(f"{n}: w_h must be [hidden_size, hidden_size], got "
                                  f"{_fmt_shape(hs)}")
        h = hs[0]
        b = _oshape(self.x)[1] if len(_oshape(self.x)) == 3 else -1
        xs = _oshape(self.x)
        if len(xs) != 3:
            raise VerifyException(f"{n}: x must be [num_step, batch, input_size], got "
                                  f"{_fmt_shape(xs)}")
        for what, v, want in (("w_x", self.w_x, (xs[2], h)), ("b", self.b, (h,)),
                              ("init_h", self.init_h, (b, h))):
            if not _shapes_match(_oshape(v), want):
                raise VerifyException(f"{n}: {what} must be {_fmt_shape(want)}, got "
                                      f"{_fmt_shape(_oshape(v))}")
        if not _flag(self.time_major):
            raise VerifyException(f"{n}: only time_major = true is represented")
        _check_result_shape(n, (xs[0], xs[1], h), _oshape(self.y))
        check_same_element_type(n, self.x.type, self.y.type)




RECURRENT_OPS = (DynamicRNNOp, DynamicGRUV2Op, TanhRNNOp, InplaceUpdateOp)

