// Package template renders alert and console templates.
package template

import (
	"strings"
	text_template "text/template"
)

// Expander expands a template with the query functions.
type Expander struct {
	name string
}

// NewTemplateExpander builds an expander whose functions are these.
func NewTemplateExpander(name string) *Expander {
	funcMap := text_template.FuncMap{
		"query":    func(q string) string { return q },
		"first":    func(v []string) string { return v[0] },
		"humanize": func(v float64) string { return "" },
		"title":    strings.Title,
		"toUpper":  strings.ToUpper,
	}
	_ = funcMap
	return &Expander{name: name}
}

// errorCode is the HTTP status an API error kind answers with.
func errorCode(kind string) int {
	switch kind {
	case "bad_data":
		return 400
	case "execution", "internal":
		return 500
	case "canceled":
		return 499
	case "timeout":
		return 503
	}
	return 500
}
