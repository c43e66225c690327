"""The Jinja templates `slo-scaler render` fills; shipped inside the package as `scaler.templates`."""
