// The scraper's command line, in kingpin's shape.
package main

import (
	"os"

	"github.com/alecthomas/kingpin/v2"
)

type flagConfig struct {
	configFile    string
	retention     string
	listenAddress string
	maxConns      int
}

func main() {
	cfg := flagConfig{}
	a := kingpin.New("scraper", "The scraper server.")

	a.Flag("config.file", "Configuration file path.").
		Default("scraper.yml").StringVar(&cfg.configFile)

	a.Flag("storage.tsdb.retention.time", "How long to retain samples in storage.").
		Default("15d").StringVar(&cfg.retention)

	a.Flag("web.listen-address", "Address to listen on for the UI and API.").
		Default("0.0.0.0:9090").StringVar(&cfg.listenAddress)

	a.Flag("web.max-connections", "Maximum number of simultaneous connections.").
		Default("512").IntVar(&cfg.maxConns)

	a.Flag("debug.internal", "Internal switches.").Hidden().Default("off").String()

	if _, err := a.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
}
