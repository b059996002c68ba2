package erasurecheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/contract/bounded"
)

// ValidationReportFile is the file CDK writes its validation report to, in
// the cloud assembly directory.
const ValidationReportFile = "validation-report.json"

// ReportedViolation is one violation as CDK's validation report states it
// (aws-cdk-lib 2.276's format): what a user sees in `cdk synth`.
type ReportedViolation struct {
	Plugin        string // e.g. erasure-channel, cdk-nag's annotations, the CloudFormation validator
	Rule          string
	Severity      string // fatal, error, warning, info
	Description   string
	ConstructPath string // "" when CDK could not name one
	LogicalID     string
	TemplatePath  string
}

// String is "[construct path (logical id)] description", the shape CDK prints.
func (v ReportedViolation) String() string {
	where := v.ConstructPath
	if v.LogicalID != "" {
		where += " (" + v.LogicalID + ")"
	}
	if where == "" {
		return v.Description
	}
	return "[" + where + "] " + v.Description
}

// Fails says whether the violation fails a synth: fatal and error always;
// warnings only under strict mode, which the channel does not rely on.
func (v ReportedViolation) Fails() bool { return v.Severity == "fatal" || v.Severity == "error" }

// ErrNoReport is returned when a directory holds no validation report.
var ErrNoReport = errors.New("erasurecheck: no validation report")

// ReadValidationReport decodes the validation report CDK wrote in dir: every
// violation of every plugin, one entry per violating construct, and one
// entry per plugin that failed to run.
func ReadValidationReport(dir string) ([]ReportedViolation, error) {
	b, err := bounded.ReadFile(filepath.Join(dir, ValidationReportFile), cfnmodel.MaxManifestBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoReport
	}
	if err != nil {
		return nil, fmt.Errorf("erasurecheck: the validation report: %w", err)
	}
	var rep struct {
		PluginReports []struct {
			PluginName string `json:"pluginName"`
			Conclusion string `json:"conclusion"`
			Metadata   struct {
				Error string `json:"error"`
			} `json:"metadata"`
			Violations []struct {
				RuleName            string `json:"ruleName"`
				Description         string `json:"description"`
				Severity            string `json:"severity"`
				ViolatingConstructs []struct {
					ConstructPath          string `json:"constructPath"`
					CloudFormationResource *struct {
						TemplatePath string `json:"templatePath"`
						LogicalID    string `json:"logicalId"`
					} `json:"cloudFormationResource"`
				} `json:"violatingConstructs"`
			} `json:"violations"`
		} `json:"pluginReports"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("erasurecheck: the validation report is not in the format aws-cdk-lib 2.276 writes")
	}
	var out []ReportedViolation
	for _, pr := range rep.PluginReports {
		if pr.Metadata.Error != "" && len(pr.Violations) == 0 {
			out = append(out, ReportedViolation{Plugin: pr.PluginName, Severity: "error", Description: pr.Metadata.Error})
		}
		for _, v := range pr.Violations {
			base := ReportedViolation{Plugin: pr.PluginName, Rule: v.RuleName, Severity: v.Severity, Description: v.Description}
			if base.Severity == "" {
				base.Severity = "error"
			}
			if len(v.ViolatingConstructs) == 0 {
				out = append(out, base)
			}
			for _, c := range v.ViolatingConstructs {
				r := base
				r.ConstructPath = c.ConstructPath
				if c.CloudFormationResource != nil {
					r.LogicalID, r.TemplatePath = c.CloudFormationResource.LogicalID, c.CloudFormationResource.TemplatePath
				}
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// FailingLines are the lines of the violations that fail a synth.
func FailingLines(vs []ReportedViolation) []string {
	var out []string
	for _, v := range vs {
		if v.Fails() {
			out = append(out, v.String())
		}
	}
	return out
}

// ConstructValidationLines keeps the "[construct path] problem" lines of the
// error CDK raises when a construct's own validation fails (ErasureSubscriber's
// caps), without its stack trace. Policy validation violations, the check's
// included, are read from the report instead (ReadValidationReport).
func ConstructValidationLines(msg string) []string {
	if !strings.Contains(msg, "ValidationFailedWithErrors") && !strings.Contains(msg, "Validation failed with the following errors") {
		return nil
	}
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") && strings.Contains(l, "] ") {
			out = append(out, l)
		}
	}
	return out
}
