"""The game-agnostic core: the game interface, the registry, records."""
