"""Rules engines of the five games. Knows nothing about cameras: input is observations."""
