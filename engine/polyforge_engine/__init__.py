"""PolyForge science engine (ARCHITECTURE §6)."""

__version__ = "0.1.0"
