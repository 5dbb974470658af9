"""A live game as people use it: the table line parser (``script``); the session and the read
models move here from ``engine.tracker`` as the tracker is reshaped."""
