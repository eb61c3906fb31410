"""One module per CLI command (cli.py runs `run(job, workdir)` of the one asked): each reads its job,
then calls into the engine's parts step by step."""
