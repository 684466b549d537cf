"""Ascend chip profiles.

Numbers from `shared/reference/cann-facts.md` section 6 (the runtime's
`platform_config/cann/<SoC>.ini`).  HBM bandwidth is not in the ini files: the values used
here are the secondary-source figures the reference quotes (~1.6 TB/s 910B2/B3, ~0.8 TB/s
910B4, ~1.2 TB/s 910A).  For 910B1 we assume the 910B2 figure, and for 310P3 none is given:
we assume 0.2 TB/s (LPDDR4X class) and say so wherever the cost model reports it.
"""

from __future__ import annotations

from dataclasses import dataclass

KIB = 1024
MIB = 1024 * 1024

# Bytes per cycle per core (reference section 6).
BYTES_PER_CYCLE = {
    "GM->L1": 32,
    "L2->L1": 110,
    "L1->L0A": 512,
    "L1->L0B": 256,
    "L1->UB": 128,
    "L0C->UB": 256,
    "UB->GM": 64,
}


@dataclass(frozen=True)
class ChipProfile:
    name: str
    cube_cores: int
    vector_cores: int
    clock_mhz: int
    l0a: int
    l0b: int
    l0c: int
    l1: int
    ub: int
    l2: int
    hbm_tb_per_s: float
    hbm_source: str

    def capacity(self, space: str) -> int | None:
        """Bytes of one core's buffer `space` (GM has no per-core limit: None)."""
        return {"L0A": self.l0a, "L0B": self.l0b, "L0C": self.l0c, "L1": self.l1,
                "UB": self.ub}.get(space)

    @property
    def peak_fp16_tflops(self) -> float:
        """cores x 8192 flop/cycle x clock (derived in the reference)."""
        return self.cube_cores * 8192 * self.clock_mhz * 1e6 / 1e12


_B = dict(l0a=64 * KIB, l0b=64 * KIB, l0c=128 * KIB, l1=512 * KIB, ub=192 * KIB)

CHIPS: dict[str, ChipProfile] = {
    c.name: c
    for c in (
        ChipProfile("Ascend910A", 32, 32, 1000, 64 * KIB, 64 * KIB, 256 * KIB, 1 * MIB,
                    256 * KIB, 32 * MIB, 1.2, "secondary source (reference section 6)"),
        ChipProfile("Ascend910B1", 24, 48, 1850, **_B, l2=192 * MIB, hbm_tb_per_s=1.6,
                    hbm_source="assumed equal to 910B2"),
        ChipProfile("Ascend910B2", 24, 48, 1800, **_B, l2=192 * MIB, hbm_tb_per_s=1.6,
                    hbm_source="secondary source (reference section 6)"),
        ChipProfile("Ascend910B3", 20, 40, 1800, **_B, l2=192 * MIB, hbm_tb_per_s=1.6,
                    hbm_source="secondary source (reference section 6)"),
        ChipProfile("Ascend910B4", 20, 40, 1500, **_B, l2=96 * MIB, hbm_tb_per_s=0.8,
                    hbm_source="secondary source (reference section 6)"),
        ChipProfile("Ascend310P3", 8, 8, 1060, 64 * KIB, 64 * KIB, 256 * KIB, 1 * MIB,
                    256 * KIB, 16 * MIB, 0.2, "assumption: not in the reference"),
    )
}

DEFAULT_CHIP = "Ascend910B3"


class UnknownChipError(ValueError):
    pass


def get_chip(name: str) -> ChipProfile:
    try:
        return CHIPS[name]
    except KeyError:
        raise UnknownChipError(
            f"unknown soc version '{name}'; known: {', '.join(CHIPS)}") from None
