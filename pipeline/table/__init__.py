"""The table page: a local web server over the tracker's store (``engine.live``)."""
