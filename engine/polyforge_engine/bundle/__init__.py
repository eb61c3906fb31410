"""The results bundle: zip, README, protocol inputs for GROMACS and Amber."""
