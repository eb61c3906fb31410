"""Chain statistics of built systems: backbone torsion populations, meso fraction and internal
distances C(m) = <R²(m)> / (m l²), measured from the built coordinates alone (the engine's own
figures are not used). Imported by bench/chains/run.py and usable on its own."""

from __future__ import annotations

import numpy as np
from rdkit import Chem


def backbone(mol: Chem.Mol, head: int, tail: int) -> list[int]:
    return list(Chem.GetShortestPath(mol, head, tail))


def dihedrals(xyz: np.ndarray, path: list[int]) -> np.ndarray:
    """Backbone dihedrals (degrees, -180..180) along `path` (atoms) of one chain."""
    p = xyz[path]
    b1, b2, b3 = p[1:-2] - p[:-3], p[2:-1] - p[1:-2], p[3:] - p[2:-1]
    n1, n2 = np.cross(b1, b2), np.cross(b2, b3)
    m = np.cross(n1, b2 / np.linalg.norm(b2, axis=1)[:, None])
    return np.degrees(np.arctan2((m * n2).sum(1), (n1 * n2).sum(1)))


def states(phi: np.ndarray) -> np.ndarray:
    """0 trans (|φ| > 120°), 1 gauche+ (0..120°), 2 gauche- (-120..0°)."""
    return np.where(np.abs(phi) > 120, 0, np.where(phi > 0, 1, 2))


def internal_distances(xyz: np.ndarray, path: list[int], step: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """m (bonds) and <R²(m)> along the backbone path of one chain, over all pairs m bonds apart."""
    p = xyz[path]
    n = len(p) - 1
    ms = np.arange(1, n + 1, step)
    r2 = np.array([((p[m:] - p[:-m]) ** 2).sum(axis=1).mean() for m in ms])
    return ms, r2


def mean_square_bond(xyz: np.ndarray, path: list[int]) -> float:
    p = xyz[path]
    return float(((p[1:] - p[:-1]) ** 2).sum(axis=1).mean())


def ris_polyethylene(temperature: float, e_sigma: float = 0.5, e_omega: float = 2.0, gauche: float = 67.5, angle: float = 112.0):
    """Rotational-isomeric-state model of polyethylene (Abe, Jernigan and Flory, J. Am. Chem. Soc.
    1966, 88, 631): states trans (180°) and gauche (±`gauche`°, IUPAC dihedrals), statistical weights
    σ = exp(-Eσ/RT) per gauche and ω = exp(-Eω/RT) per g±g∓ pair (kcal/mol), C-C-C angle `angle`.
    Returns the trans fraction, the share of consecutive g±g∓ pairs and C∞ (4,000 chains of 1,000 bonds
    drawn from the exact Markov chain of the model)."""
    rt = 1.987204e-3 * temperature
    sigma, omega = np.exp(-e_sigma / rt), np.exp(-e_omega / rt)
    u = np.array([[1, sigma, sigma], [1, sigma, sigma * omega], [1, sigma * omega, sigma]])
    eigenvalues, right = np.linalg.eig(u)
    lead = int(np.argmax(eigenvalues.real))
    r = np.abs(right[:, lead].real)
    transition = u * r[None, :] / (eigenvalues.real[lead] * r[:, None])  # P(next state | previous)
    w, left = np.linalg.eig(transition.T)
    p = np.abs(left[:, int(np.argmax(w.real))].real)
    p /= p.sum()
    pairs = p[1] * transition[1, 2] + p[2] * transition[2, 1]
    phis = np.radians([180.0, gauche, -gauche])
    return float(p[0]), float(pairs), _c_infinity(transition, p, np.radians(angle), phis)


def _c_infinity(transition: np.ndarray, p: np.ndarray, angle: float, phis: np.ndarray, bonds: int = 1000, chains: int = 4000) -> float:
    """<R²>/(n l²) of chains with unit bonds, bond angle `angle` and dihedrals drawn from the chain."""
    rng = np.random.default_rng(1)
    cumulative = np.cumsum(transition, axis=1)
    state = rng.choice(3, size=chains, p=p)
    a = np.tile([0.0, 1.0, 0.0], (chains, 1))
    b = np.zeros((chains, 3))
    c = np.tile([1.0, 0.0, 0.0], (chains, 1))
    start = b.copy()
    for _ in range(bonds - 1):
        bc = (c - b) / np.linalg.norm(c - b, axis=1)[:, None]
        n = np.cross(b - a, bc)
        n /= np.linalg.norm(n, axis=1)[:, None]
        m = np.cross(n, bc)
        phi = phis[state]
        d = np.stack([-np.cos(angle) * np.ones(chains), np.sin(angle) * np.cos(phi), np.sin(angle) * np.sin(phi)], axis=1)
        new = c + d[:, :1] * bc + d[:, 1:2] * m + d[:, 2:] * n
        a, b, c = b, c, new
        state = (rng.random(chains)[:, None] > cumulative[state]).sum(axis=1)
    return float(((c - start) ** 2).sum(axis=1).mean() / bonds)
