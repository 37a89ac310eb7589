"""Pure analyses: `Design` → metrics. Analysers never format text."""
