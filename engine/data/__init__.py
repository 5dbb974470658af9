"""Reading a game's data (DESIGN.md: where card loading is going). Today: spreadsheet text and
headers, used by ``engine.cards``."""
