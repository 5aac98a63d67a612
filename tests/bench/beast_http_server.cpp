// beast_http_server: a benchmark-only HTTP server on Boost.Beast with countersignd's connection
// limits, for bench_http --server (docs/SECURITY.md, "The HTTP layer"). Not a product: it answers
// GET /api/v1/health 200 and every other request 401 after reading it whole, refuses a head over
// 16 KiB (431) and a body over 65536 bytes (413), a head or body not complete within
// --head-timeout-ms (408), closes keep-alive connections idle for --idle-timeout-ms, caps
// connections (--max-connections, --max-connections-per-address, at most the descriptor limit
// less 32: 503), and backs off accept on EMFILE. One thread, as countersignd's API is.
//
// Usage: beast_http_server [serve ...] [--head-timeout-ms N] [--idle-timeout-ms N]
//        [--max-connections N] [--max-connections-per-address N]; other arguments are ignored.
// Prints http://127.0.0.1:PORT first.
#include <boost/asio.hpp>
#include <boost/beast.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

struct Limits
{
    std::chrono::milliseconds headTimeout{10000};
    std::chrono::milliseconds idleTimeout{60000};
    int maxConnections = 256;
    int maxPerAddress = 32;
};

struct Counts
{
    int total = 0;
    std::map<std::string, int> perAddress;
};

http::response<http::string_body> problem(unsigned status, const char *code, bool close)
{
    http::response<http::string_body> res{static_cast<http::status>(status), 11};
    res.set(http::field::content_type, "application/problem+json");
    res.set(http::field::cache_control, "no-store");
    res.body() = std::string("{\"code\":\"") + code + "\",\"status\":" + std::to_string(status) + "}";
    res.keep_alive(!close);
    res.prepare_payload();
    return res;
}

class Session : public std::enable_shared_from_this<Session>
{
public:
    Session(tcp::socket socket, const Limits &limits, Counts &counts, std::string address)
        : m_stream(std::move(socket)), m_limits(limits), m_counts(counts), m_address(std::move(address))
    {
    }
    ~Session()
    {
        --m_counts.total;
        if (--m_counts.perAddress[m_address] <= 0)
            m_counts.perAddress.erase(m_address);
    }

    void start() { readHead(m_limits.headTimeout); }

private:
    void readHead(std::chrono::milliseconds timeout)
    {
        m_parser.emplace();
        m_parser->header_limit(16 * 1024);
        m_parser->body_limit(65536);
        m_stream.expires_after(timeout);
        http::async_read_header(m_stream, m_buffer, *m_parser,
                                [self = shared_from_this()](beast::error_code ec, std::size_t) { self->onHead(ec); });
    }

    void onHead(beast::error_code ec)
    {
        if (ec)
            return refuse(ec);
        m_stream.expires_after(m_limits.headTimeout);
        http::async_read(m_stream, m_buffer, *m_parser,
                         [self = shared_from_this()](beast::error_code e, std::size_t) { self->onBody(e); });
    }

    void onBody(beast::error_code ec)
    {
        if (ec)
            return refuse(ec);
        const auto &req = m_parser->get();
        const bool keepAlive = req.keep_alive();
        if (req.method() == http::verb::get && req.target() == "/api/v1/health") {
            auto res = std::make_shared<http::response<http::string_body>>(http::status::ok, req.version());
            res->set(http::field::content_type, "application/json");
            res->body() = "{\"status\":\"ok\"}";
            res->keep_alive(keepAlive);
            res->prepare_payload();
            send(res, !keepAlive);
        } else {
            send(std::make_shared<http::response<http::string_body>>(problem(401, "unauthenticated", !keepAlive)), !keepAlive);
        }
    }

    void refuse(beast::error_code ec)
    {
        if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::operation_aborted
            || ec == asio::error::connection_reset)
            return close();
        if (ec == beast::error::timeout) {
            if (m_parser && m_parser->got_some())
                return send(std::make_shared<http::response<http::string_body>>(problem(408, "request_timeout", true)), true);
            return close(); // an idle keep-alive, or nothing ever sent
        }
        if (ec == http::error::header_limit)
            return send(std::make_shared<http::response<http::string_body>>(problem(431, "header_too_large", true)), true);
        if (ec == http::error::body_limit)
            return send(std::make_shared<http::response<http::string_body>>(problem(413, "payload_too_large", true)), true);
        send(std::make_shared<http::response<http::string_body>>(problem(400, "malformed_request", true)), true);
    }

    void send(std::shared_ptr<http::response<http::string_body>> res, bool closeAfter)
    {
        m_stream.expires_after(m_limits.headTimeout);
        http::async_write(m_stream, *res, [self = shared_from_this(), res, closeAfter](beast::error_code ec, std::size_t) {
            if (ec)
                return self->close();
            if (closeAfter)
                return self->linger();
            self->readHead(self->m_limits.idleTimeout);
        });
    }

    // Half-close, then read and drop what the client still sends for 500 ms, so it can read the
    // answer before the close (as countersignd's guard does).
    void linger()
    {
        beast::error_code ignored;
        m_stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
        m_stream.expires_after(std::chrono::milliseconds(500));
        drain();
    }
    void drain()
    {
        m_stream.async_read_some(asio::buffer(m_scratch), [self = shared_from_this()](beast::error_code ec, std::size_t) {
            if (ec)
                return self->close();
            self->drain();
        });
    }

    void close()
    {
        beast::error_code ignored;
        m_stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
        m_stream.close();
    }

    beast::tcp_stream m_stream;
    beast::flat_buffer m_buffer;
    std::optional<http::request_parser<http::string_body>> m_parser;
    std::array<char, 65536> m_scratch{};
    const Limits &m_limits;
    Counts &m_counts;
    std::string m_address;
};

class Listener : public std::enable_shared_from_this<Listener>
{
public:
    Listener(asio::io_context &io, const Limits &limits) : m_io(io), m_acceptor(io), m_backoff(io), m_limits(limits)
    {
        tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
        m_acceptor.open(endpoint.protocol());
        m_acceptor.set_option(asio::socket_base::reuse_address(true));
        m_acceptor.bind(endpoint);
        m_acceptor.listen(asio::socket_base::max_listen_connections);
    }
    unsigned short port() const { return m_acceptor.local_endpoint().port(); }
    void accept()
    {
        m_acceptor.async_accept(asio::make_strand(m_io), [self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
            self->onAccept(ec, std::move(socket));
        });
    }

private:
    void onAccept(beast::error_code ec, tcp::socket socket)
    {
        if (ec) { // EMFILE, ENFILE, ...: back off instead of spinning
            m_backoff.expires_after(std::chrono::milliseconds(250));
            m_backoff.async_wait([self = shared_from_this()](beast::error_code) { self->accept(); });
            return;
        }
        beast::error_code ignored;
        const std::string address = socket.remote_endpoint(ignored).address().to_string();
        if (m_counts.total >= m_limits.maxConnections || m_counts.perAddress[address] >= m_limits.maxPerAddress) {
            auto res = problem(503, "too_many_connections", true);
            http::write(socket, res, ignored);
            socket.shutdown(tcp::socket::shutdown_send, ignored);
            socket.close(ignored);
        } else {
            ++m_counts.total;
            ++m_counts.perAddress[address];
            std::make_shared<Session>(std::move(socket), m_limits, m_counts, address)->start();
        }
        accept();
    }

    asio::io_context &m_io;
    tcp::acceptor m_acceptor;
    asio::steady_timer m_backoff;
    const Limits &m_limits;
    Counts m_counts;
};

} // namespace

int main(int argc, char *argv[])
{
    Limits limits;
    for (int i = 1; i + 1 < argc; ++i) {
        const std::string name = argv[i];
        const long value = std::strtol(argv[i + 1], nullptr, 10);
        if (name == "--head-timeout-ms")
            limits.headTimeout = std::chrono::milliseconds(value);
        else if (name == "--idle-timeout-ms")
            limits.idleTimeout = std::chrono::milliseconds(value);
        else if (name == "--max-connections")
            limits.maxConnections = int(value);
        else if (name == "--max-connections-per-address")
            limits.maxPerAddress = int(value);
    }
    rlimit fds{};
    if (getrlimit(RLIMIT_NOFILE, &fds) == 0 && fds.rlim_cur != RLIM_INFINITY) {
        const long budget = fds.rlim_cur > 64 ? long(fds.rlim_cur) - 32 : long(fds.rlim_cur) / 2;
        limits.maxConnections = int(std::min<long>(limits.maxConnections, std::max(budget, 1L)));
    }
    asio::io_context io{1};
    auto listener = std::make_shared<Listener>(io, limits);
    std::printf("http://127.0.0.1:%u\n", unsigned(listener->port()));
    std::fflush(stdout);
    listener->accept();
    asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&io](beast::error_code, int) { io.stop(); });
    io.run();
    return 0;
}
