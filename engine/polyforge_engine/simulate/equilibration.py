"""The stages of a run's dynamics: one stage in the protocol's ensemble, or the melt equilibration
preset.

The preset is the 21-step compression/decompression schedule of Larsen et al. (Macromolecules
2011, 44, 6944; after Hofmann et al., Macromol. Theory Simul. 2000, 9, 293) as tabulated by Abbott,
Hart and Colina (Theor. Chem. Acc. 2013, 132, 1334) and run by pysimm and RadonPy: seven cycles of
NVT at T_max, NVT at the final temperature, then NPT at a pressure that rises to P_max = 50,000 bar
and falls back to the final pressure, T_max = 600 K. The original lasts 1.56 ns; here every stage
keeps its share of that time within the user's dynamics steps (at least MIN_STAGE_STEPS each), so
the long last NPT stage, where density is measured, is about half of the budget."""

from __future__ import annotations

from polyforge_engine.events import EngineError
from polyforge_engine.simulate.protocol import Ensemble, Protocol, Stage

T_MAX_K = 600.0
P_MAX_BAR = 50_000.0
MIN_STAGE_STEPS = 20

# (ensemble, hot: T_max instead of the final temperature, pressure as a fraction of P_max or None
# for the final pressure, duration in ps in the published schedule)
_SCHEDULE: tuple[tuple[Ensemble, bool, float | None, float], ...] = (
    ("NVT", True, None, 50),
    ("NVT", False, None, 50),
    ("NPT", False, 0.02, 50),
    ("NVT", True, None, 50),
    ("NVT", False, None, 100),
    ("NPT", False, 0.6, 50),
    ("NVT", True, None, 50),
    ("NVT", False, None, 100),
    ("NPT", False, 1.0, 50),
    ("NVT", True, None, 50),
    ("NVT", False, None, 100),
    ("NPT", False, 0.5, 5),
    ("NVT", True, None, 5),
    ("NVT", False, None, 10),
    ("NPT", False, 0.1, 5),
    ("NVT", True, None, 5),
    ("NVT", False, None, 10),
    ("NPT", False, 0.01, 5),
    ("NVT", True, None, 5),
    ("NVT", False, None, 10),
    ("NPT", False, None, 800),
)
SCHEDULE_PS = sum(row[3] for row in _SCHEDULE)


def dynamics_stages(protocol: Protocol) -> list[Stage]:
    """The stages the dynamics steps are spent on, in order; their steps add up to the budget
    (the preset needs at least 21 × MIN_STAGE_STEPS)."""
    if protocol.equilibration == "none":
        pressure = protocol.pressure_bar if protocol.ensemble == "NPT" else None
        return [Stage(protocol.ensemble, protocol.temperature_k, pressure, protocol.dynamics_steps)]
    return melt_schedule(protocol.dynamics_steps, protocol.temperature_k, protocol.pressure_bar)


def melt_schedule(budget: int, temperature_k: float, pressure_bar: float) -> list[Stage]:
    minimum = MIN_STAGE_STEPS * len(_SCHEDULE)
    if budget < minimum:
        raise EngineError("INVALID_INPUT", f"The melt equilibration needs at least {minimum} dynamics steps (21 stages).")
    hot = max(T_MAX_K, temperature_k)
    spare = budget - minimum
    shares = [spare * row[3] / SCHEDULE_PS for row in _SCHEDULE]
    steps = [MIN_STAGE_STEPS + int(share) for share in shares]
    steps[-1] += budget - sum(steps)  # rounding goes to the final stage
    return [
        Stage(
            ensemble,
            hot if is_hot else temperature_k,
            (P_MAX_BAR * fraction if fraction is not None else pressure_bar) if ensemble == "NPT" else None,
            count,
        )
        for (ensemble, is_hot, fraction, _), count in zip(_SCHEDULE, steps, strict=True)
    ]
