package conform

import (
	"encoding/xml"
	"strings"
)

// The JUnit XML shapes CI systems read (the Ant schema's testsuite).
type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     float64     `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      float64       `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// JUnit is the report as JUnit XML, one testcase per case.
func (r *Report) JUnit() ([]byte, error) {
	s := junitSuite{Name: "erasure-conform " + r.Runtime + " " + r.Handler, Tests: len(r.Cases), Time: r.Duration.Seconds()}
	for _, c := range r.Cases {
		jc := junitCase{Name: c.Name, ClassName: "erasure-conform." + r.Runtime, Time: c.Duration.Seconds()}
		switch {
		case !c.Passed():
			s.Failures++
			jc.Failure = &junitFailure{Message: c.Failures[0], Text: strings.Join(c.Failures, "\n")}
		case c.Skipped != "":
			s.Skipped++
			jc.Skipped = &junitSkipped{Message: c.Skipped}
		}
		s.Cases = append(s.Cases, jc)
	}
	out, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}
