package sources

import "bytes"

// This file reads the ingress-nginx controller's klog lines about applying
// a new configuration (internal/ingress/controller/controller.go,
// syncIngress, the same since controller-v0.35 and in v1):
//
//	I0520 11:10:37.726813       7 controller.go:204] Dynamic reconfiguration succeeded.
//	I0601 10:02:01.318192       7 controller.go:231] "Backend successfully reloaded"
//
// Endpoints reach nginx only through the dynamic reconfiguration (a POST of
// the backends to the Lua balancer), also after a reload, so its success is
// the moment the proxy learned them: a ProxyUpdated record. It is logged at
// verbosity 2 (`--v=2`). The reload lines and a failed reconfiguration are
// kept for the timeline as LifecycleOther with their reason.

// Reasons of the records of these lines.
const (
	// nginxReasonDynamic: `Dynamic reconfiguration succeeded.`
	nginxReasonDynamic = "DynamicReconfiguration"
	// nginxReasonReloadRequired: `Configuration changes detected, backend reload required`.
	nginxReasonReloadRequired = "ReloadRequired"
	// nginxReasonReloaded: `Backend successfully reloaded`.
	nginxReasonReloaded = "Reloaded"
	// nginxReasonDynamicFailed: `Dynamic reconfiguration failed...`.
	nginxReasonDynamicFailed = "DynamicReconfigurationFailed"
)

// nginxReconfigMessages are the messages read, without klog's quotes (InfoS
// quotes its message, Infof does not) or a trailing period (v0.x has one).
var nginxReconfigMessages = []struct {
	prefix string
	kind   LifecycleKind
	reason string
}{
	{"Dynamic reconfiguration succeeded", ProxyUpdated, nginxReasonDynamic},
	{"Dynamic reconfiguration failed", LifecycleOther, nginxReasonDynamicFailed},
	{"Configuration changes detected, backend reload required", LifecycleOther, nginxReasonReloadRequired},
	{"Backend successfully reloaded", LifecycleOther, nginxReasonReloaded},
}

// nginxReconfigured recognises a configuration message and sets l's kind
// and reason; it reports false for any other message.
func nginxReconfigured(msg []byte, l *Lifecycle) bool {
	msg = bytes.TrimPrefix(msg, []byte(`"`))
	for _, m := range nginxReconfigMessages {
		if bytes.HasPrefix(msg, []byte(m.prefix)) {
			l.Kind, l.Reason = m.kind, m.reason
			return true
		}
	}
	return false
}
