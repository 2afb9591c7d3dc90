"""Content-plugin bundles (issue 5): manifests, marketplaces, managed installs,
discovery, enablement and reconciliation. See docs/plugins.md."""
