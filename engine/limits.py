"""Hard limits on untrusted input: a game folder or store file from a stranger cannot exhaust
memory or time. Each limit is far above anything a real game needs and is stated in the README.

A game's own rules (deck sizes, copy limits) apply first; these ceilings only stop bombs.
"""

from __future__ import annotations

#: A YAML/CSV card, deck, style or glossary file. The largest shipped file is ~12 KB; a
#: 10,000-card benchmark file is ~4 MB.
MAX_TEXT_FILE_BYTES = 16 * 1024 * 1024

#: Nodes a YAML document may compose (alias bombs expand exponentially without a bound).
MAX_YAML_NODES = 1_000_000

#: Digits of an integer anywhere in the data (a 5000-digit number is a mistake, not a card).
MAX_INT_DIGITS = 18

#: An XLSX file is a zip: its members may not unpack to more than this in all…
MAX_XLSX_UNPACKED_BYTES = 64 * 1024 * 1024
#: …nor to more than this many times the file's own size (zip bombs compress ~1000×).
MAX_XLSX_RATIO = 100

#: Characters in one card field (the longest shipped rules text is ~150).
MAX_FIELD_CHARS = 10_000

#: Pixels of one art file or icon (an A4 scan at 600 dpi is ~35 MP).
MAX_IMAGE_PIXELS = 64_000_000

#: Copies of one card in a deck file, and cards in one deck, whatever the game allows.
MAX_COPIES = 1_000
MAX_DECK_CARDS = 100_000

#: Card size bounds in millimetres (a mini card is 41 × 63, a tarot 70 × 120).
MIN_CARD_MM = 10.0
MAX_CARD_MM = 400.0

#: Characters one template render may produce, and seconds it may take.
MAX_TEMPLATE_OUTPUT_CHARS = 2_000_000
MAX_TEMPLATE_SECONDS = 5.0
#: Loop iterations (``range``) one render may run in all.
MAX_TEMPLATE_ITERATIONS = 1_000_000

#: A tracker export file read by ``track import``.
MAX_IMPORT_BYTES = 64 * 1024 * 1024

#: Nesting depth of lists and mappings in one YAML document (the deepest shipped file nests 5;
#: building deeper trees recurses, and Python's stack would give out first).
MAX_YAML_DEPTH = 100

#: Bytes of one art file (an uncompressed 64 MP RGBA PNG is ~256 MB; real art is a few MB).
MAX_ART_FILE_BYTES = 256 * 1024 * 1024

#: Filled rows and columns of a card spreadsheet (a tiny XLSX may declare 1,048,576 × 16,384
#: cells, which openpyxl would pad out; the 10,000-card benchmark sheet has ~15 columns).
MAX_SHEET_ROWS = 100_000
MAX_SHEET_COLUMNS = 1_000

#: Items in one list of a tracker record (a level pile, a chain, a game log's events of one
#: entry): a forged store or import cannot make one field allocate without bound.
MAX_TRACK_LIST_ITEMS = 10_000

#: Nesting of an exported game log (file → entries → entry → events → event → a pair list is 7).
MAX_TRACK_LOG_DEPTH = 12

#: Bytes of one template file. Compiling costs ~20 s per MB of dense Jinja, so a bigger file
#: would stall a build before its first render; the largest shipped template is ~20 KB.
MAX_TEMPLATE_FILE_BYTES = 256 * 1024

#: Seconds all template renders of one build may take together: a template just under the
#: per-render bound would otherwise make a 600-card build take 50 minutes. Shipped faces render
#: in ~0.4 ms, so 10,000 cards need ~4 s.
MAX_BUILD_TEMPLATE_SECONDS = 120.0

#: Bytes of one tap a phone sends the table page (a command with its arguments is well under
#: 1 KB): a request body is read no further.
MAX_TAP_BYTES = 64 * 1024
