package dashboard

import (
	"embed"
	"io/fs"
)

//go:embed static
var static embed.FS

// Files are the page's files (index.html, app.js, style.css), served
// under /dashboard/.
func Files() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the directory is embedded: it is there
	}
	return sub
}
