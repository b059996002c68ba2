package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/linn-cloud/erasure-channel/schema"
)

// constantRef is a number the package's docs give with the constant it
// comes from: "60 s (T, `handlerTimeoutCapSeconds`)", "6
// (`visibilityTimeoutMultiplier`)", "300 s (X)".
var constantRef = regexp.MustCompile("(\\d+)(?: s)? \\((?:([A-Za-z]), )?(?:`(\\w+)`)?(?:[,)])|(\\d+)(?: s)? \\(([A-Za-z])\\)")

// TestPackageDocsGiveTheConstants: every number the construct package's
// prop docs (and the Go construct's) give beside a constant's name or symbol
// is that constant's value
// in schema/erasure-channel-constants.json, so a store team reading them in
// an IDE reads the channel's numbers, and a changed constant fails here
// until the docs say it.
func TestPackageDocsGiveTheConstants(t *testing.T) {
	var file struct {
		Constants, AWSLimits map[string]struct {
			Value  float64 `json:"value"`
			Symbol string  `json:"symbol"`
		}
	}
	if err := json.Unmarshal(schema.ChannelConstantsJSON, &file); err != nil {
		t.Fatal(err)
	}
	bySymbol := map[string]float64{}
	for _, c := range file.Constants {
		if c.Symbol != "" {
			bySymbol[c.Symbol] = c.Value
		}
	}
	ts, err := os.ReadFile(filepath.Join("..", "constructs", "typescript", "lib", "index.ts"))
	if err != nil {
		t.Fatal(err)
	}
	goProps, err := os.ReadFile(filepath.Join("..", "constructs", "erasure", "subscriber.go"))
	if err != nil {
		t.Fatal(err)
	}
	// Doc comments read as one line: a number and its constant may sit on two.
	text := regexp.MustCompile(`\n\s*\* ?`).ReplaceAllString(string(ts), " ") + " " +
		regexp.MustCompile(`\n\s*// ?`).ReplaceAllString(string(goProps), " ")
	checked := 0
	for _, m := range constantRef.FindAllStringSubmatch(text, -1) {
		num, symbol, name := m[1], m[2], m[3]
		if num == "" {
			num, symbol = m[4], m[5]
		}
		if symbol == "" && name == "" {
			continue
		}
		got, _ := strconv.ParseFloat(num, 64)
		if name != "" {
			c, ok := file.Constants[name]
			if !ok {
				c, ok = file.AWSLimits[name]
			}
			if !ok {
				t.Errorf("%q names %s, which is no constant", m[0], name)
				continue
			}
			if c.Value != got || (symbol != "" && c.Symbol != symbol) {
				t.Errorf("%q: %s is %v (symbol %q)", m[0], name, c.Value, c.Symbol)
			}
		} else if v, ok := bySymbol[symbol]; !ok || v != got {
			t.Errorf("%q: %s is %v", m[0], symbol, v)
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("only %d numbers checked: the docs no longer give the constants' numbers", checked)
	}
}
