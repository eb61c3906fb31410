"""Process-level helpers shared by the engine's commands: cancellation and external tools."""
