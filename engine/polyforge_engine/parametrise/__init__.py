"""GAFF/GAFF2 parametrisation with AmberTools: fragment AM1-BCC charges, atom types, parmchk2,
tleap, and ParmEd export to GROMACS and Amber formats."""
