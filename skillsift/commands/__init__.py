"""One module per CLI command; ``skillsift.cli`` loads them lazily."""
