"""What the commands print: findings, reports, estimates and summaries as text, JSON, SARIF, JUnit, GitHub or Markdown.

Findings as text, JSON, SARIF, JUnit and GitHub annotations (`findings`); diff and gap reports as Markdown or JSON;
estimates, validation-case scores and sweep summaries as text or JSON.

Pure functions from results to strings; nothing here prints, writes or exits. Every JSON document starts from one
envelope (`envelope.document`): ``{"archgen": <version>, ...}``, with quantities as ``{"value", "unit"}`` in SI
units (`envelope.quantity`) and findings in one shape (`envelope.finding`).
"""
