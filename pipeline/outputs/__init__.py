"""What a user takes away from a game: one module per output (DESIGN.md, pipeline/outputs/)."""
