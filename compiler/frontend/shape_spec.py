"""ATC's list of named shapes, `"x:1,224,224,3;y:1,128"`: the one grammar behind `--input_shape`
(static shapes, the gears' -1s, shape ranges' lo~hi), `--report-shape` and cann-translate's
`--input-shape`.  A part is split at its last ':' (a TF tensor name may hold one); each caller
reads a dimension its own way and words the errors for its option."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def parse_named_shapes(spec: str, bad: Callable[[str], Exception],
                       dim: Callable[[str, str], T], *, scalars: bool = False,
                       unique: bool = True, required: bool = True) -> dict[str, list[T]]:
    """{name: [dim(part, text) for each dimension]} of `spec`.  `bad(why)` makes the error of a
    part that is not `name:d0,d1,...`, of a name given twice (`unique`) and of a spec naming no
    input (`required`); `dim` raises its own.  With `scalars`, `name:` is a rank-0 shape;
    otherwise (and between commas) an empty dimension reaches `dim` as ''."""
    out: dict[str, list[T]] = {}
    for part in spec.split(";"):
        if not part.strip():
            continue
        name, colon, dims = part.strip().rpartition(":")
        name = name.strip()
        if not colon or not name:
            raise bad(f"'{part}' is not name:d0,d1,...")
        texts = [] if scalars and not dims.strip() else [d.strip() for d in dims.split(",")]
        values = [dim(part, d) for d in texts]
        if unique and name in out:
            raise bad(f"'{name}' is given twice")
        out[name] = values
    if required and not out:
        raise bad("no input given")
    return out
