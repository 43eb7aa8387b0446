// Package config holds the configuration file's shape and its defaults.
package config

import (
	"time"

	"github.com/example/scraper/model"
)

// GlobalConfig is the `global:` section of the configuration file.
type GlobalConfig struct {
	ScrapeInterval     model.Duration    `yaml:"scrape_interval,omitempty"`
	ScrapeTimeout      model.Duration    `yaml:"scrape_timeout,omitempty"`
	EvaluationInterval model.Duration    `yaml:"evaluation_interval,omitempty"`
	ExternalLabels     map[string]string `yaml:"external_labels,omitempty"`
	internal           bool
}

// DefaultGlobalConfig is what a file that leaves the section out gets.
var DefaultGlobalConfig = GlobalConfig{
	ScrapeInterval:     model.Duration(1 * time.Minute),
	ScrapeTimeout:      model.Duration(10 * time.Second),
	EvaluationInterval: model.Duration(1 * time.Minute),
}
