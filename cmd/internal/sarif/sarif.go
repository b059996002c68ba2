// Package sarif is the part of SARIF 2.1.0 (OASIS, sarif-v2.1.0) the check
// writes: a log of one run, its tool's rules, and results located in
// templates, with suppressions. The names and JSON keys are the standard's.
package sarif

// Log is a SARIF log file.
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// Run is one run of one tool.
type Run struct {
	Tool    Tool     `json:"tool"`
	Results []Result `json:"results"`
}

// Tool is the analysis tool.
type Tool struct {
	Driver Driver `json:"driver"`
}

// Driver is the tool's primary component and its rules.
type Driver struct {
	Name           string `json:"name"`
	Version        string `json:"version,omitempty"`
	InformationURI string `json:"informationUri,omitempty"`
	Rules          []Rule `json:"rules"`
}

// Rule is a reportingDescriptor: one rule of the tool.
type Rule struct {
	ID                   string        `json:"id"`
	Name                 string        `json:"name,omitempty"`
	ShortDescription     Message       `json:"shortDescription"`
	FullDescription      Message       `json:"fullDescription"`
	HelpURI              string        `json:"helpUri,omitempty"`
	DefaultConfiguration Configuration `json:"defaultConfiguration"`
}

// Configuration is a rule's default reportingConfiguration.
type Configuration struct {
	Level string `json:"level"` // error, warning, note
}

// Message is a plain-text message.
type Message struct {
	Text string `json:"text"`
}

// Result is one finding.
type Result struct {
	RuleID       string        `json:"ruleId,omitempty"`
	RuleIndex    *int          `json:"ruleIndex,omitempty"`
	Level        string        `json:"level"`
	Message      Message       `json:"message"`
	Locations    []Location    `json:"locations"`
	Suppressions []Suppression `json:"suppressions,omitempty"`
}

// Location is where a result points: a file region and logical names.
type Location struct {
	PhysicalLocation *PhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []LogicalLocation `json:"logicalLocations,omitempty"`
}

// PhysicalLocation is a file and a region of it.
type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
	Region           *Region          `json:"region,omitempty"`
}

// ArtifactLocation is a file by URI.
type ArtifactLocation struct {
	URI string `json:"uri"`
}

// Region is a start line and column, from 1.
type Region struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// LogicalLocation names a resource or construct.
type LogicalLocation struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName,omitempty"`
	Kind               string `json:"kind,omitempty"`
}

// Suppression says a result is known and accepted, and why.
type Suppression struct {
	Kind          string `json:"kind"`   // inSource (recorded with the code), external (a file beside it)
	Status        string `json:"status"` // accepted
	Justification string `json:"justification"`
}
