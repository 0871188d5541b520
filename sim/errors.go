package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// apiError is an error reply in vLLM's shape:
// {"object":"error","message":...,"type":...,"param":null,"code":N}.
type apiError struct {
	Object  string  `json:"object"`
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

func (e *apiError) Error() string { return e.Message }

// errorType names the error types vLLM uses for each status.
func errorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "BadRequestError"
	case http.StatusNotFound:
		return "NotFoundError"
	case http.StatusMethodNotAllowed:
		return "MethodNotAllowedError"
	case http.StatusTooManyRequests:
		return "RateLimitError"
	default:
		return "InternalServerError"
	}
}

func newAPIError(status int, format string, args ...any) *apiError {
	return &apiError{Object: "error", Message: fmt.Sprintf(format, args...), Type: errorType(status), Code: status}
}

// writeError sends e with its status code.
func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.Code, e)
}

// writeJSON sends v as a JSON body with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"object":"error","message":"sim: encoding reply failed","type":"InternalServerError","param":null,"code":500}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body) // a client that hung up is not our error
}

// methodNotAllowed answers 405 in vLLM's error shape, naming the one method
// the route takes.
func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeError(w, newAPIError(http.StatusMethodNotAllowed, "Method Not Allowed"))
}
