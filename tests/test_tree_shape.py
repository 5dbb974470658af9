"""The tree reads as its flow (README: layout of the repository): each library has one home, so a newcomer
finds a step by its folder. Read from every module's imports, function-level ones included."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, as written (absolute), at any depth of its code."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
                found.update(f"{module}.{alias.name}" for alias in node.names)
                found.add(module)
            else:
                found.add(node.module)
    return found


def _offenders(folder: str, libraries: tuple[str, ...], allowed) -> list[str]:
    out = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if allowed(rel):
            continue
        for module in sorted(_imports(path)):
            if any(module == lib or module.startswith(lib + ".") for lib in libraries):
                out.append(f"{rel}: {module}")
    return out


def test_the_helper_sees_imports_at_every_depth(tmp_path):
    probe = ROOT / "pipeline" / "outputs" / "images.py"
    assert "pipeline.render.raster" in _imports(probe)          # a relative import, resolved
    assert any(m.startswith("pipeline.workers") for m in _imports(probe))  # one inside a function


def test_engine_imports_no_drawing_templating_cli_or_pipeline():
    assert not _offenders("engine", ("reportlab", "pypdfium2", "jinja2", "typer", "click", "pipeline"),
                          lambda rel: False)


def test_reportlab_and_pdfium_live_in_render_and_the_rulebooks_platypus_module():
    assert not _offenders("pipeline", ("reportlab", "pypdfium2"),
                          lambda rel: rel.startswith("pipeline/render/") or rel == "pipeline/rulebook/pdf.py")


def test_jinja_lives_in_layout():
    assert not _offenders("pipeline", ("jinja2",), lambda rel: rel.startswith("pipeline/layout/"))


def test_typer_and_click_live_in_cli():
    assert not _offenders("pipeline", ("typer", "click"), lambda rel: rel.startswith("pipeline/cli/"))


def test_no_command_module_imports_the_root_app():
    """The root (cli/app.py) registers the command modules; they share cli/common.py, never the
    root, so there is no import circle."""
    assert not _offenders("pipeline/cli", ("pipeline.cli.app",), lambda rel: rel == "pipeline/cli/app.py")


def test_paper_sizes_have_one_table():
    """Every command reads the papers from templates/_common/presets/papers.yaml: no module keeps
    a paper size of its own."""
    sizes = ("210.0, 297.0", "215.9, 279.4", "210, 297", "215.9", "279.4", "pagesizes")
    found = [f"{p.relative_to(ROOT)}" for folder in ("pipeline", "engine") for p in (ROOT / folder).rglob("*.py")
             if any(s in p.read_text(encoding="utf-8") for s in sizes)]
    assert not found
