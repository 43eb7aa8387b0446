"""The Go reader's ``flags`` and ``env`` selectors on the shapes real programs write:
prometheus' kingpin flags and their wrapper, cobra's pflag calls named by constants,
Pulse's std ``flag`` sets and injected ``getenv``, urfave/cli literals; as sets and,
with ``defaults: true``, as maps from name to default."""

from __future__ import annotations

import pytest

from driftguard.config.specs import Env, Flags
from driftguard.model import FactNotFound, Kind, ParseError
from driftguard.sources import go as reader
from tests.go_reading import PATH, entries, fixture, line_of, names, parse, read, skipped

# -- kingpin ---------------------------------------------------------------------------

KINGPIN = fixture("cmd/prometheus/main.go").replace(
    "\t_ = webConfig", '\ta.Flag("web.listen-address", "Address.").Default(addrs...).StringsVar(&cfg.addrs)\n'
    "\t_ = webConfig")


def test_kingpin_flags_are_read_on_the_app_through_a_same_file_wrapper_and_with_the_name_on_its_own_line() -> None:
    items = read(KINGPIN, Flags(within="main"))
    assert [(i.value.data, i.location.line) for i in items] == [
        ("config.file", line_of(KINGPIN, '"config.file"')), ("web.config.file", line_of(KINGPIN, '"web.config.file"')),
        ("web.max-connections", line_of(KINGPIN, '"web.max-connections"')),
        ("web.external-url", line_of(KINGPIN, '"web.external-url"')),
        ("rules.max-concurrent-evals", line_of(KINGPIN, '"rules.max-concurrent-evals"')),
        ("alertmanager.notification-batch-size", line_of(KINGPIN, '"alertmanager.notification-batch-size"')),
        ("web.listen-address", line_of(KINGPIN, '"web.listen-address"'))]


def test_a_hidden_kingpin_flag_is_left_out_and_said() -> None:
    assert "scrape.timestamp-tolerance" not in names(KINGPIN, Flags())
    line = line_of(KINGPIN, '"scrape.timestamp-tolerance"')
    assert f"line {line}: --scrape.timestamp-tolerance is hidden from help (`.Hidden()`); left out" in skipped(
        KINGPIN, Flags())


def test_kingpin_defaults_are_the_strings_default_is_given_and_empty_without_one() -> None:
    assert entries(KINGPIN, Flags(defaults=True)) == {
        "config.file": (Kind.STRING, "prometheus.yml"),
        "web.config.file": (Kind.STRING, ""),
        "web.max-connections": (Kind.STRING, "512"),
        "web.external-url": (Kind.STRING, ""),
        "rules.max-concurrent-evals": (Kind.STRING, "4"),
        "alertmanager.notification-batch-size": (Kind.STRING, ""),
        "web.listen-address": (Kind.STRING, ""),
    }


def test_a_default_that_is_not_a_literal_keeps_its_flag_and_is_said() -> None:
    notes = skipped(KINGPIN, Flags(defaults=True))
    line = line_of(KINGPIN, "strconv.Itoa(")
    assert notes[1].startswith(f"line {line}: the default of --alertmanager.notification-batch-size, "
                               "`strconv.Itoa(defaultMaxBatchSize)`, is not a literal")
    line = line_of(KINGPIN, '"web.listen-address"')
    assert notes[2] == f"line {line}: --web.listen-address has several defaults or a spread; no default known"


def test_a_map_entry_sits_at_its_default_and_is_labelled_with_the_flag() -> None:
    [entry] = [i for i in read(KINGPIN, Flags(defaults=True)) if i.label == "config.file"]
    assert (entry.location.line, entry.location.column) == (line_of(KINGPIN, 'Default("prometheus.yml")'), 11)


def test_the_wrapper_body_is_no_flag_and_no_skipped_name() -> None:
    assert not any("`name`" in note for note in skipped(KINGPIN, Flags()))


def test_a_wrapper_of_another_file_is_read_when_named_like_one_and_chained_into_default() -> None:
    source = KINGPIN.replace("func serverOnlyFlag(", "func unrelated(").replace("return app.Flag(name,",
                                                                               "return app.X(name,")
    assert "rules.max-concurrent-evals" in names(source, Flags())
    hidden = source.replace('serverOnlyFlag(a, "rules.max-concurrent-evals", "Global concurrency limit for '
                            'independent rules.").\n\t\tDefault("4")', 'lookupFlag(a, "rules.max-concurrent-evals", '
                            '"x").\n\t\tHidden()')
    assert hidden != source and "rules.max-concurrent-evals" not in names(hidden, Flags())


# -- pflag and cobra -------------------------------------------------------------------

COBRA = '''
package cobra

import "github.com/spf13/cobra"

const (
	compCmdNoDescFlagName    = "no-descriptions"
	compCmdNoDescFlagDesc    = "disable completion descriptions"
	compCmdNoDescFlagDefault = false
	helpFlagName             = "help"
)

func (c *Command) InitDefaultHelpFlag(bash *Command) {
	if c.Flags().Lookup(helpFlagName) == nil {
		c.Flags().BoolP(helpFlagName, "h", false, "help for "+c.Name())
		_ = c.Flags().SetAnnotation(helpFlagName, FlagSetByCobraAnnotation, []string{"true"})
	}
	bash.Flags().BoolVar(&noDesc, compCmdNoDescFlagName, compCmdNoDescFlagDefault, compCmdNoDescFlagDesc)
	c.PersistentFlags().StringVarP(&userLicense, "license", "l", "", "name of license for the project")
	c.PersistentFlags().StringP("author", "a", "YOUR NAME", "author name for copyright attribution")
	c.Flags().IntVar(&depth, "depth", 4, "how deep")
	c.Flags().DurationP("wait", "w", 90*time.Second, "how long to wait")
	c.Flags().Var(&level, "level", "log level")
	c.Flags().CountP("verbose", "v", "more output")
	c.Flags().Int("trace-depth", 3, "hidden")
	_ = c.Flags().MarkHidden("trace-depth")
}
'''


def test_pflag_flags_on_a_command_read_names_from_constants_and_shift_for_p_variants() -> None:
    assert names(COBRA, Flags()) == ["help", "no-descriptions", "license", "author", "depth", "wait", "level",
                                      "verbose"]
    assert entries(COBRA, Flags(defaults=True)) == {
        "help": (Kind.BOOL, False), "no-descriptions": (Kind.BOOL, False), "license": (Kind.STRING, ""),
        "author": (Kind.STRING, "YOUR NAME"), "depth": (Kind.NUMBER, 4), "wait": (Kind.DURATION, 90.0),
        "level": (Kind.STRING, ""), "verbose": (Kind.STRING, "")}


def test_a_lookup_or_annotation_call_is_no_definition_and_mark_hidden_leaves_a_flag_out() -> None:
    notes = skipped(COBRA, Flags())
    assert notes == ["line 24: --trace-depth is hidden from help (`MarkHidden`); left out"]


# -- std flag ----------------------------------------------------------------------------

STD = '''
package main

import (
	"flag"
	"time"
)

var verbose = flag.Bool("verbose", false, "talk more")

func init() {
	flag.StringVar(&dir, "dir", "/var/lib/app", "data directory")
}

type agent struct {
	fs *flag.FlagSet
}

func loadConfig(args []string, getenv func(string) string) error {
	fs := flag.NewFlagSet("pulse-agent", flag.ContinueOnError)
	fs.String("url", envURL, "Pulse server URL")
	fs.Duration("interval", 30*time.Second, "Reporting interval")
	fs.Var(&tags, "tag", "Tag to apply (repeatable)")
	fs.String(name, "", "a name the caller gives")
	return nil
}

func (a *agent) register() {
	a.fs.Int("kube-max-pods", 200, "Max pods included in report")
}

func (s *Server) String() string { return buf.String() }
'''


def test_std_flags_are_read_on_the_package_a_flag_set_and_a_field_typed_as_one_anywhere_in_the_file() -> None:
    assert names(STD, Flags()) == ["verbose", "dir", "url", "interval", "tag", "kube-max-pods"]


def test_within_limits_the_flags_to_one_function() -> None:
    assert names(STD, Flags(within="loadConfig")) == ["url", "interval", "tag"]
    assert names(STD, Flags(within="agent.register")) == ["kube-max-pods"]


def test_std_defaults_are_typed_and_a_default_naming_a_variable_is_unknown_and_said() -> None:
    assert entries(STD, Flags(defaults=True)) == {
        "verbose": (Kind.BOOL, False), "dir": (Kind.STRING, "/var/lib/app"), "url": (Kind.STRING, ""),
        "interval": (Kind.DURATION, 30.0), "tag": (Kind.STRING, ""), "kube-max-pods": (Kind.NUMBER, 200)}
    notes = skipped(STD, Flags(defaults=True))
    assert notes[0].startswith("line 20: the default of --url, `envURL`, is not a literal")


def test_a_flag_whose_name_is_not_a_literal_is_left_out_and_said() -> None:
    assert skipped(STD, Flags(within="loadConfig")) == [
        "line 23: a flag named by `name`, not a literal (`name` is not a constant of this file); left out"]


# -- urfave/cli --------------------------------------------------------------------------

URFAVE = fixture("cmd/mailer/main.go", """
    var legacy = []cli.Flag{
    \t&cli.StringFlag{Name: "secret", Hidden: true},
    \tcli.StringFlag{Name: "config, c", Value: "app.yaml"},
    }
""")


def test_urfave_flag_literals_give_name_and_value_and_v1_aliases_are_cut() -> None:
    assert entries(URFAVE, Flags(defaults=True)) == {
        "lang": (Kind.STRING, "english"), "retries": (Kind.NUMBER, 3), "dry-run": (Kind.STRING, ""),
        "config": (Kind.STRING, "app.yaml")}
    line = line_of(URFAVE, '"secret"')
    assert skipped(URFAVE, Flags()) == [f"line {line}: --secret is hidden from help (`Hidden: true`); left out"]


def test_a_flag_literal_of_a_package_not_imported_from_urfave_is_no_flag() -> None:
    with pytest.raises(FactNotFound) as caught:
        read(URFAVE.replace("urfave/cli/v2", "example.com/cli"), Flags())
    assert "no command-line flag definition" in caught.value.message


# -- duplicates, nothing found, syntax errors ---------------------------------------------


def test_a_flag_defined_twice_is_one_member_and_a_second_default_is_said() -> None:
    source = COBRA.replace('c.Flags().IntVar(&depth, "depth", 4,', 'c.Flags().IntVar(&depth, "depth", 4, "x")\n'
                           '\tc.Flags().IntVar(&depth, "depth", 5,')
    assert names(source, Flags()).count("depth") == 1
    assert entries(source, Flags(defaults=True))["depth"] == (Kind.NUMBER, 4)
    assert "line 21: --depth is defined again, with the default 5; the first (line 20) is kept" in skipped(
        source, Flags(defaults=True))


def test_a_file_without_flags_is_fact_not_found_naming_the_libraries() -> None:
    with pytest.raises(FactNotFound) as caught:
        read("package x\n\nfunc f() { fmt.Println(1) }\n", Flags())
    assert caught.value.message == ("no command-line flag definition (flag, pflag or cobra, kingpin, urfave/cli) "
                                    "in this file")


def test_a_syntax_error_in_a_flag_definition_fails_the_fact_at_its_line() -> None:
    broken = STD.replace('fs.Duration("interval", 30*time.Second,', 'fs.Duration("interval", 30*time.Second +,')
    with pytest.raises(ParseError) as caught:
        read(broken, Flags())
    assert caught.value.location.line == 21


def test_a_syntax_error_outside_every_flag_definition_leaves_the_flags_read() -> None:
    source = STD + "\nfunc describe(out []byte) *string {\n\treturn new(string(out))\n}\n"
    assert reader.problems(parse(source), PATH) == [(line_of(source, "new(string(out))"), "`string` does not parse")]
    assert names(source, Flags()) == ["verbose", "dir", "url", "interval", "tag", "kube-max-pods"]


# -- env -----------------------------------------------------------------------------------

ENV = fixture("cmd/probe/main.go", """
    func envBool(key string) (bool, bool) {
    \traw, ok := os.LookupEnv(key)
    \treturn raw == "1", ok
    }

    func extra(names []string) {
    \tstrict, _ := envBool("PULSE_STRICT")
    \tfor _, name := range names {
    \t\t_ = os.Getenv(name)
    \t}
    \t_ = os.Getenv("PULSE_LOG_LEVEL")
    \t_ = strict
    }
""")


def test_env_reads_by_os_by_a_wrapper_by_an_injected_getenv_and_by_constant_name() -> None:
    items = read(ENV, Env())
    assert [(i.value.data, i.location.line) for i in items] == [
        ("PULSE_URL", line_of(ENV, '"PULSE_URL"')), ("PULSE_TOKEN", line_of(ENV, "os.Getenv(tokenEnvName)")),
        ("PULSE_LOG_LEVEL", line_of(ENV, '"PULSE_LOG_LEVEL"')), ("PULSE_DATA_DIR", line_of(ENV, '"PULSE_DATA_DIR"')),
        ("PULSE_STRICT", line_of(ENV, '"PULSE_STRICT"'))]


def test_env_defaults_come_from_a_wrapper_returning_its_fallback_and_are_empty_elsewhere() -> None:
    assert entries(ENV, Env(defaults=True)) == {
        "PULSE_URL": (Kind.STRING, ""), "PULSE_TOKEN": (Kind.STRING, ""), "PULSE_LOG_LEVEL": (Kind.STRING, "info"),
        "PULSE_DATA_DIR": (Kind.STRING, ""), "PULSE_STRICT": (Kind.STRING, "")}


def test_the_first_read_giving_a_default_wins_and_a_different_one_is_said() -> None:
    source = ENV.replace('_ = os.Getenv("PULSE_LOG_LEVEL")', '_ = envOrDefault("PULSE_LOG_LEVEL", "debug")')
    assert entries(source, Env(defaults=True))["PULSE_LOG_LEVEL"] == (Kind.STRING, "info")
    assert any("PULSE_LOG_LEVEL is read again with the default debug; the first default, info, is kept" in n
               for n in skipped(source, Env(defaults=True)))


def test_an_env_read_whose_name_is_not_a_literal_is_left_out_and_said() -> None:
    assert skipped(ENV, Env()) == [f"line {line_of(ENV, 'os.Getenv(name)')}: `os.Getenv(name)` names no literal "
                                   "(`name` is not a constant of this file); left out"]


def test_a_function_parameter_that_is_not_an_env_reader_is_no_read() -> None:
    source = ENV.replace("getenv func(string) string", "transform func(string) string").replace(
        'getenv("PULSE_URL")', 'transform("PULSE_URL")')
    assert source != ENV
    assert "PULSE_URL" not in names(source, Env())


def test_a_file_reading_no_environment_is_fact_not_found() -> None:
    with pytest.raises(FactNotFound) as caught:
        read("package x\n\nimport \"os\"\n\nvar args = os.Args\n", Env())
    assert caught.value.message == "no environment variable read (os.Getenv, os.LookupEnv) in this file"
