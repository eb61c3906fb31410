"""Structure commands: convert-smiles, validate-structure, validate-topology, and readers."""
