"""RGB → CMYK for print shops: an ICC transform (Pillow ``ImageCms``, littleCMS) and a total-ink limiter.

**The CMYK profile** (``templates/_common/icc/cardpress-cmyk.icc``) is built by
``build_cmyk_profile`` below, not taken from a vendor: no free CMYK characterisation profile is
packaged by Debian (colord-data and icc-profiles-free ship RGB profiles and the raw FOGRA/TR00x
``.ti3`` measurements only), and FOGRA's/ECI's profiles may not be redistributed with changes. It
is an ICC v2 output profile (``prtr``, CMYK → Lab D50) with ``mft2`` (lut16) tables from a simple
subtractive model: CMYK → RGB = 1 − min(1, c + k)… → Lab through sRGB's primaries, and back with full
grey-component replacement (K takes the common part of C, M, Y; the rest stays as it was — the
division form (c − k)/(1 − k) is ill-conditioned near black, where it turned a black of
L* = 0 into M100 Y100 K97). A colour converted from RGB so carries at most 200 % ink (one of C, M,
Y is always 0); the limiter matters for richer blacks and shops with a lower limit. It is *not* a measured press
condition; a shop converting to its own press reads the OutputIntent and does so. Its licence:
CC0 (``templates/_common/icc/LICENSE``). The sRGB profile for RGB outputs is littleCMS's own
built-in sRGB (``ImageCms.createProfile("sRGB")``), written alongside.

**Total ink** (total area coverage, TAC) is the sum C + M + Y + K in per cent; DriveThruCards caps it
at 240 % (https://help.drivethrupartners.com — "Specifications for printed cards", 2026: "CMYK …
total ink coverage must not exceed 240 %; rich black C60 M40 Y40 K100"). ``limit_ink`` keeps K and
scales C, M and Y down where the sum passes the limit, so a rich black keeps its depth and the
colour its hue.
"""

from __future__ import annotations

import io
import struct
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageCms

from engine.paths import templates_root

ICC_DIR = templates_root() / "_common" / "icc"  # the shipped templates: the repository's, or the wheel's copy
CMYK_PROFILE = ICC_DIR / "cardpress-cmyk.icc"
SRGB_PROFILE = ICC_DIR / "sRGB.icc"
#: The OutputIntent's name for the profile's condition (PDF/X: OutputConditionIdentifier).
CMYK_CONDITION = "cardpress CMYK (simple subtractive model, full GCR)"

_D50 = np.array([0.9642, 1.0, 0.8249])
# sRGB (D65) primaries adapted to D50 (Bradford), as in the ICC's sRGB profiles.
_RGB_TO_XYZ = np.array([[0.4360747, 0.3850649, 0.1430804],
                        [0.2225045, 0.7168786, 0.0606169],
                        [0.0139322, 0.0971045, 0.7141733]])


def _srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = lin @ _RGB_TO_XYZ.T / _D50
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def _lab_to_srgb(lab: np.ndarray) -> np.ndarray:
    fy = (lab[..., 0] + 16) / 116
    f = np.stack([fy + lab[..., 1] / 500, fy, fy - lab[..., 2] / 200], axis=-1)
    xyz = np.where(f > 6 / 29, f ** 3, 3 * (6 / 29) ** 2 * (f - 4 / 29)) * _D50
    lin = np.clip(xyz @ np.linalg.inv(_RGB_TO_XYZ).T, 0, 1)
    return np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)


def _lab16(lab: np.ndarray) -> np.ndarray:
    """ICC v2 16-bit Lab (lut16 PCS encoding): L 0–100 → 0–0xFF00, a/b −128–127.996 → 0–0xFFFF."""
    enc = np.stack([lab[..., 0] * 652.8, (lab[..., 1] + 128) * 256, (lab[..., 2] + 128) * 256], axis=-1)
    return np.clip(np.rint(enc), 0, 65535).astype(">u2")


def _mft2(grid: int, table: np.ndarray, inputs: int, outputs: int) -> bytes:
    """An ICC ``mft2`` (lut16Type) tag: identity matrix and curves around a ``grid``^inputs CLUT."""
    ident = struct.pack(">9i", 65536, 0, 0, 0, 65536, 0, 0, 0, 65536)
    curve = np.linspace(0, 65535, 2).astype(">u2").tobytes()
    head = b"mft2" + bytes(4) + struct.pack(">BBBB", inputs, outputs, grid, 0) + ident + struct.pack(">HH", 2, 2)
    return head + curve * inputs + table.astype(">u2").tobytes() + curve * outputs


def _text_tags(description: str, copyright_: str) -> tuple[bytes, bytes]:
    d = description.encode("ascii") + b"\0"
    desc = b"desc" + bytes(4) + struct.pack(">I", len(d)) + d + bytes(4) + bytes(4) + bytes(2) + bytes(1) + bytes(67)
    cprt = b"text" + bytes(4) + copyright_.encode("ascii") + b"\0"
    return desc, cprt


def build_cmyk_profile() -> bytes:
    """The shipped CMYK profile's bytes (see the module's docstring); deterministic."""
    # A2B0: CMYK → Lab on a 9-point grid (9^4 nodes), C varying slowest as ICC requires.
    g = np.linspace(0, 1, 9)
    c, m, y, k = np.meshgrid(g, g, g, g, indexing="ij")
    rgb = 1 - np.minimum(1, np.stack([c + k, m + k, y + k], axis=-1))
    a2b = _lab16(_srgb_to_lab(rgb)).reshape(-1)
    # B2A0: Lab → CMYK on a 33-point grid over the lut16 Lab range.
    n = 33
    e = np.linspace(0, 65535, n)
    L, a, b = np.meshgrid(e / 652.8, e / 256 - 128, e / 256 - 128, indexing="ij")
    cmy = 1 - _lab_to_srgb(np.stack([np.clip(L, 0, 100), a, b], axis=-1))
    kk = cmy.min(axis=-1, keepdims=True)
    cmy = cmy - kk
    b2a = np.clip(np.rint(np.concatenate([cmy, kk], axis=-1) * 65535), 0, 65535).reshape(-1)
    desc, cprt = _text_tags("cardpress CMYK (simple model, full GCR)",
                            "CC0 1.0: no rights reserved (cardpress, built by pipeline/render/cmyk.py)")
    wtpt = b"XYZ " + bytes(4) + struct.pack(">3i", *(round(v * 65536) for v in _D50))
    a2b_tag, b2a_tag = _mft2(9, a2b, 4, 3), _mft2(n, b2a, 3, 4)
    tags = [(b"desc", desc), (b"cprt", cprt), (b"wtpt", wtpt), (b"A2B0", a2b_tag), (b"B2A0", b2a_tag)]
    shared = {b"A2B1": b"A2B0", b"A2B2": b"A2B0", b"B2A1": b"B2A0", b"B2A2": b"B2A0"}
    table_len = 4 + 12 * (len(tags) + len(shared))
    offset, body, where = 128 + table_len, b"", {}
    for sig, data in tags:
        where[sig] = (offset + len(body), len(data))
        body += data + bytes(-len(data) % 4)
    entries = [(sig, *where[sig]) for sig, _data in tags] + [(sig, *where[src]) for sig, src in shared.items()]
    table = struct.pack(">I", len(entries)) + b"".join(struct.pack(">4sII", *e) for e in entries)
    size = 128 + len(table) + len(body)
    header = (struct.pack(">I", size) + b"lcms" + struct.pack(">I", 0x02100000) + b"prtrCMYKLab "
              + struct.pack(">6H", 2026, 1, 1, 0, 0, 0) + b"acsp" + b"APPL" + bytes(4) + bytes(8) + bytes(8)
              + struct.pack(">I", 0) + struct.pack(">3i", *(round(v * 65536) for v in _D50)) + b"cdps")
    header += bytes(128 - len(header))
    return header + table + body


def write_profiles(folder: Path = ICC_DIR) -> None:
    """(Re)write the shipped profiles: ``python -m pipeline.render.cmyk``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CMYK_PROFILE.name).write_bytes(build_cmyk_profile())
    (folder / SRGB_PROFILE.name).write_bytes(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())


@lru_cache(maxsize=1)
def _transform() -> ImageCms.ImageCmsTransform:
    return ImageCms.buildTransform(ImageCms.getOpenProfile(str(SRGB_PROFILE)),
                                   ImageCms.getOpenProfile(str(CMYK_PROFILE)), "RGB", "CMYK",
                                   renderingIntent=ImageCms.Intent.PERCEPTUAL)


def limit_ink(cmyk: np.ndarray, limit_percent: float) -> np.ndarray:
    """``cmyk`` (… × 4, uint8, 255 = 100 %) with every pixel's C + M + Y + K at most ``limit_percent``:
    K is kept (capped at the limit itself), C, M and Y are scaled by the same factor (rounded down)."""
    cap = int(limit_percent * 255 // 100)
    px = cmyk.astype(np.int32)
    k = np.minimum(px[..., 3], cap)
    cmy = px[..., :3]
    total = cmy.sum(axis=-1)
    room = cap - k
    over = total + k > cap
    scaled = cmy * room[..., None] // np.maximum(total, 1)[..., None]
    out = np.where(over[..., None], scaled, cmy)
    return np.concatenate([out, k[..., None]], axis=-1).astype(np.uint8)


def total_ink(cmyk: np.ndarray) -> float:
    """The highest total ink of any pixel, in per cent."""
    return float(cmyk.astype(np.int32).sum(axis=-1).max()) * 100 / 255


def to_cmyk(image: Image.Image, limit_percent: float) -> Image.Image:
    """An sRGB image as CMYK through the shipped profile, total ink limited to ``limit_percent``."""
    cmyk = ImageCms.applyTransform(image.convert("RGB"), _transform())
    return Image.fromarray(limit_ink(np.asarray(cmyk), limit_percent), "CMYK")


def srgb_profile_bytes() -> bytes:
    return SRGB_PROFILE.read_bytes()


def cmyk_profile_bytes() -> bytes:
    return CMYK_PROFILE.read_bytes()


if __name__ == "__main__":
    write_profiles()
    print(io.StringIO(f"written: {CMYK_PROFILE}, {SRGB_PROFILE}").getvalue())
