# vendor: the browser libraries the extension loads (axe-core, xterm.js),
# copied with their licences into extension/vendor/ (generated, ignored by
# git) from the pinned npm packages in tools/vendor. Everything that loads
# the extension depends on it.
.PHONY: vendor
vendor: extension/vendor/versions.json

extension/vendor/versions.json: tools/vendor/package.json tools/vendor/package-lock.json tools/vendor/vendor.sh
	bash tools/vendor/vendor.sh

build test e2e run bench dist-extension: vendor
