"""ReportLab's home in the pipeline (see ../shared/DESIGN.md): what draws and writes PDFs."""
