"""What is compared: architecture specs, presets and the components they name."""
