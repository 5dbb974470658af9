"""cardpress production pipeline: load → validate → lay out → draw → impose → write (+ CLI)."""
