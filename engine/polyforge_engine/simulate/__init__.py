"""OpenMM minimisation and molecular dynamics."""
