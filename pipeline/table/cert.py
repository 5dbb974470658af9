"""A self-signed certificate for ``cardpress table --https``.

Browsers keep the screen awake (Wake Lock) and give a page its secure features only on HTTPS or
on the phone's own loopback address; a table on a home network is neither. The tool makes one
certificate (ECDSA P-256, valid for ``localhost``, 127.0.0.1 and the machine's LAN addresses)
and keeps it in the data directory, so each phone trusts it once, not every evening; a new
LAN address makes a new certificate.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
from pathlib import Path

from pipeline.atomic import atomic_write

VALID_DAYS = 825          # the longest lifetime Apple's platforms accept for a TLS server certificate


def certificate(folder: Path, addresses: list[str]) -> tuple[Path, Path]:
    """(certificate, key) PEM files in ``folder`` valid for ``addresses`` (made if needed)."""
    cert_path, key_path, about = folder / "table-cert.pem", folder / "table-key.pem", folder / "table-cert.json"
    wanted = sorted({"127.0.0.1", *addresses})
    if cert_path.is_file() and key_path.is_file() and about.is_file():
        try:
            known = json.loads(about.read_text(encoding="utf-8"))
            fresh = dt.datetime.fromisoformat(known["until"]) > dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=7)
            if set(wanted) <= set(known["addresses"]) and fresh:
                return cert_path, key_path
        except (ValueError, KeyError, TypeError):
            pass                                    # unreadable: make a new one

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cardpress table")])
    now = dt.datetime.now(dt.timezone.utc)
    until = now + dt.timedelta(days=VALID_DAYS)
    names = [x509.DNSName("localhost"), *(x509.IPAddress(ipaddress.ip_address(a)) for a in wanted)]
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(until)
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    folder.mkdir(parents=True, exist_ok=True)
    with atomic_write(key_path) as tmp:
        Path(tmp).write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                serialization.NoEncryption()))
    key_path.chmod(0o600)
    with atomic_write(cert_path) as tmp:
        Path(tmp).write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    with atomic_write(about) as tmp:
        Path(tmp).write_text(json.dumps({"addresses": wanted, "until": until.isoformat()}), encoding="utf-8")
    return cert_path, key_path
