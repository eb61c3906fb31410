"""generate-potential: GAFF/GAFF2 topology and minimised structure for a converted or uploaded structure."""
