"""Building 3D polymer systems from building blocks: sequence expansion (sequence), unit templates
and conformers (templates), assembly into RDKit molecules (assembly), chain growth and packing in a
periodic cell (cell_grid, growth), report and files (report, writers); `structure.build_structure`
is the entry point."""
