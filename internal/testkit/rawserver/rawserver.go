package rawserver

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Server is a started raw server.
type Server struct {
	// URL is http://127.0.0.1:PORT, with no trailing slash.
	URL string
	ln  net.Listener
}

// New listens on a free loopback port and, on every connection, reads one
// request's head, writes reply byte for byte and closes the connection. A
// connection that sends no request head within 10 seconds is dropped. It
// panics when it cannot listen, as httptest.NewServer does.
func New(reply string) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("rawserver: %v", err))
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
				if _, err := http.ReadRequest(bufio.NewReader(conn)); err == nil {
					_, _ = io.WriteString(conn, reply)
				}
			}()
		}
	}()
	return &Server{URL: "http://" + ln.Addr().String(), ln: ln}
}

// Close stops accepting connections.
func (s *Server) Close() { _ = s.ln.Close() }
