"""Dense polystyrene and PMMA cells as the builder makes them, for the minimisation tests of both
engines (test_sim_minimise.py on OpenMM, test_sim_gromacs_minimise.py on GROMACS): PS-10 and PMMA-10,
6 chains at 0.8 g/cm³ (the densest the builder is asked for in practice, about 1,000 atoms), built
with several seeds. Each polymer is parametrised once: the seeds change the coordinates (and the
tacticity), not the topology the minimisation needs. Built once per test process."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np
from conftest import STYRENE, homopolymer_job
from polyforge_engine.construct.structure import build_structure
from polyforge_engine.job import parse_build_job
from polyforge_engine.parametrise.assemble import SystemModel, TopologyFiles, group_copies, parametrise_system

METHYL_METHACRYLATE = "[*:1]CC([*:2])(C)C(=O)OC"
SEEDS = (1, 2, 3, 4, 5)


class DenseCell(NamedTuple):
    name: str
    seed: int
    files: TopologyFiles  # of the first seed's cell; the same topology for every seed
    positions_nm: np.ndarray
    box_nm: np.ndarray


def _no_progress(*_: object, **__: object) -> None:
    pass


@functools.cache
def dense_cells() -> list[DenseCell]:
    root = Path(tempfile.mkdtemp(prefix="polyforge-dense-cells-"))
    atexit.register(shutil.rmtree, root, True)
    cells = []
    for name, unit_smiles in (("PS", STYRENE), ("PMMA", METHYL_METHACRYLATE)):
        files = None
        for seed in SEEDS:
            job = homopolymer_job(unit_smiles, 10, 6, density=0.8, seed=seed)
            built = build_structure(parse_build_job(job), root / f"{name}_{seed}", _no_progress)
            molecules = [built.molecule(index) for index in range(len(built.molecule_kinds))]
            grouped = group_copies(molecules)
            if files is None:
                system = SystemModel(grouped.kinds, grouped.copies, np.asarray(built.box, dtype=float))
                files = parametrise_system(system, "gaff2", root / f"{name}_topology", _no_progress).files
            positions = np.concatenate([copy.coordinates for copy in grouped.copies]) / 10
            cells.append(DenseCell(name, seed, files, positions, np.asarray(built.box, dtype=float) / 10))
    return cells
