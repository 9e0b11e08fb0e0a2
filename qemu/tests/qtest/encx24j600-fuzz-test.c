/*
 * Randomized robustness test for the ENCX24J600 SPI Ethernet controller
 *
 * Drives random chip-select framed SPI byte streams into the model through
 * the PL022 SSP and the PL061 chip select of versatilepb, as an untrusted
 * guest could, and injects random frames of 0 to 65535 bytes through a
 * socket netdev, with occasional link changes, system resets and injected
 * faults (the "x-inject", "x-int-stuck" and "x-spi-absent" properties),
 * and stretches of sane operation that make the chip move frames from
 * whatever state the noise left.  Virtual time passes as on a bus.  The
 * test passes when QEMU is still alive and answering at the end and the
 * chip moved frames.  Run it on a build configured with --enable-asan
 * and --enable-ubsan to catch out-of-bounds accesses and undefined
 * behaviour.
 *
 * Environment:
 *   ENCX_FUZZ_COMMANDS  number of CS-framed commands (default 20000)
 *   ENCX_FUZZ_SEED      random seed (default 1, so that a failure
 *                       reproduces; printed)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qobject/qdict.h"

#define SSP_BASE        0x101f4000
#define SSPCR0          0x00
#define SSPCR1          0x04
#define SSPDR           0x08
#define SSPCR1_SSE      0x02
#define SSP_FIFO_DEPTH  8

#define GPIO0_BASE      0x101e4000
#define GPIODIR         0x400
#define GPIO_CS         (1 << 0)
#define GPIO_INT        (1 << 1)

#define ENC_PATH        "/machine/encx24j600"
#define MAX_CMD_BYTES   256
#define MAX_BACKLOG     (512 * 1024)

static const uint8_t fuzz_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

typedef struct Fuzz {
    QTestState *qts;
    GRand *rng;
    int fd;
    GByteArray *backlog;    /* bytes for the stream socket not yet sent */
    uint64_t commands, bytes, frames, frame_bytes, resets, links, faults;
    uint64_t bursts;        /* sane stretches (sane_burst) */
} Fuzz;

static uint32_t rnd(Fuzz *f, uint32_t n)
{
    return g_rand_int_range(f->rng, 0, n);
}

static void board_init(QTestState *qts)
{
    qtest_writel(qts, GPIO0_BASE + GPIODIR, GPIO_CS);
    qtest_writel(qts, GPIO0_BASE + (GPIO_CS << 2), GPIO_CS);
    qtest_writel(qts, SSP_BASE + SSPCR0, 0x07);
    qtest_writel(qts, SSP_BASE + SSPCR1, SSPCR1_SSE);
}

static void cs(QTestState *qts, bool active)
{
    qtest_writel(qts, GPIO0_BASE + (GPIO_CS << 2), active ? 0 : GPIO_CS);
}

/* Clock n bytes: fill the 8-entry FIFO, then drain what came back */
static void spi_bytes(QTestState *qts, const uint8_t *tx, size_t n)
{
    size_t sent = 0, got = 0;

    while (got < n) {
        while (sent < n && sent - got < SSP_FIFO_DEPTH) {
            qtest_writel(qts, SSP_BASE + SSPDR, tx[sent++]);
        }
        while (got < sent) {
            qtest_readl(qts, SSP_BASE + SSPDR);
            got++;
        }
    }
}

/* Pointer values near the interesting boundaries */
static uint16_t rnd_ptr(Fuzz *f)
{
    static const uint16_t edge[] = { 0x0000, 0x5340, 0x5ffe, 0x5fff, 0x6000,
                                     0x7fff, 0xffff, 0x533f, 0x0001 };

    if (rnd(f, 2)) {
        return edge[rnd(f, ARRAY_SIZE(edge))] + rnd(f, 5) - 2;
    }
    return rnd(f, 0x10000);
}

static size_t rnd_data_len(Fuzz *f)
{
    switch (rnd(f, 20)) {
    case 0:
        return rnd(f, MAX_CMD_BYTES - 2);
    case 1:
    case 2:
    case 3:
    case 4:
        return 0;
    default:
        return 1 + rnd(f, 8);
    }
}

/* Build one random instruction, possibly followed by more, in buf */
static size_t gen_command(Fuzz *f, uint8_t *buf)
{
    size_t n = 0, i, len;
    int chained = 1 + (rnd(f, 4) == 0 ? rnd(f, 4) : 0);

    while (chained-- > 0 && n < MAX_CMD_BYTES - 4) {
        switch (rnd(f, 8)) {
        case 0:                         /* any byte at all */
            buf[n++] = rnd(f, 256);
            break;
        case 1:                         /* banked RCR/WCR/BFS/BFC */
            buf[n++] = rnd(f, 0xc0);
            break;
        case 2:                         /* unbanked, with an address */
            buf[n++] = 0x20 + 2 * rnd(f, 4);
            buf[n++] = rnd(f, 3) ? rnd(f, 0xa0) : rnd(f, 256);
            break;
        case 3:                         /* SRAM windows */
            buf[n++] = 0x28 + 2 * rnd(f, 6);
            break;
        case 4: {                       /* pointers */
            uint16_t p = rnd_ptr(f);

            buf[n++] = 0x60 + 2 * rnd(f, 12);
            buf[n++] = p & 0xff;
            buf[n++] = p >> 8;
            continue;
        }
        default:                        /* 1-byte instructions, RBSEL */
            buf[n++] = 0xc0 + 2 * rnd(f, 24);
            continue;
        }
        len = MIN(rnd_data_len(f), MAX_CMD_BYTES - n);
        for (i = 0; i < len; i++) {
            buf[n++] = rnd(f, 4) ? rnd(f, 256) : (rnd(f, 2) ? 0xff : 0x00);
        }
    }
    return n;
}

/* The socket netdev: non-blocking, so that QEMU can never wait for us */
static void net_pump(Fuzz *f)
{
    uint8_t junk[65536];
    ssize_t n;

    while (f->backlog->len) {
        n = send(f->fd, f->backlog->data, f->backlog->len, MSG_DONTWAIT);
        if (n <= 0) {
            break;
        }
        g_byte_array_remove_range(f->backlog, 0, n);
    }
    /* Frames the model sends are read and thrown away */
    while (recv(f->fd, junk, sizeof(junk), MSG_DONTWAIT) > 0) {
        /* nothing */
    }
}

static void gen_frame(Fuzz *f)
{
    static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
    static const uint16_t types[] = { 0x0800, 0x8808, 0x8100, 0x0040,
                                      0x05dc, 0x86dd };
    uint32_t len, i, be;
    uint8_t *p;

    switch (rnd(f, 10)) {
    case 0:
        len = rnd(f, 14);
        break;
    case 1:
    case 2:
        len = 1519 + rnd(f, 9000 - 1519);
        break;
    case 3:
        len = 9000 + rnd(f, 65536 - 9000);
        break;
    default:
        len = 14 + rnd(f, 1518 - 14 + 1);
        break;
    }
    if (f->backlog->len > MAX_BACKLOG) {
        return;
    }
    be = htonl(len);
    g_byte_array_append(f->backlog, (uint8_t *)&be, 4);
    i = f->backlog->len;
    g_byte_array_set_size(f->backlog, i + len);
    p = f->backlog->data + i;
    for (i = 0; i + 4 <= len; i += 4) {
        uint32_t r = g_rand_int(f->rng);

        memcpy(p + i, &r, 4);
    }
    for (; i < len; i++) {
        p[i] = rnd(f, 256);
    }
    if (len >= 6) {
        switch (rnd(f, 4)) {
        case 0:
            memcpy(p, fuzz_mac, 6);
            break;
        case 1:
            memset(p, 0xff, 6);
            break;
        case 2:
            memcpy(p, mcast, 6);
            break;
        }
    }
    if (len >= 16 && rnd(f, 2)) {
        uint16_t t = types[rnd(f, ARRAY_SIZE(types))];

        p[12] = t >> 8;
        p[13] = t & 0xff;
        if (t == 0x8808) {
            p[14] = 0;
            p[15] = rnd(f, 3);
        }
    }
    if (len >= 14 + 6 + 16 * 6 && rnd(f, 8) == 0) {
        /* A magic packet for our address */
        memset(p + 14, 0xff, 6);
        for (i = 0; i < 16; i++) {
            memcpy(p + 20 + 6 * i, fuzz_mac, 6);
        }
    }
    f->frames++;
    f->frame_bytes += len;
}

static void qmp_ok(QTestState *qts, QDict *rsp)
{
    g_assert(rsp);
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
}

/* Host-side fault injection, as a driver reliability test would use it */
static void inject_fault(Fuzz *f)
{
    static const char *const faults[] = {
        "rx-bad-rsv", "rx-next-odd", "rx-next-outside", "rx-past-head",
        "tx-abort", "tx-link-loss", "chip-reset",
    };
    QDict *rsp;

    f->faults++;
    switch (rnd(f, 4)) {
    case 0:
        qmp_ok(f->qts, qtest_qmp(f->qts, "{ 'execute': 'qom-set', "
                                 "'arguments': { 'path': %s, "
                                 "'property': 'x-int-stuck', 'value': %i } }",
                                 ENC_PATH, (int)(rnd(f, 4) == 0)));
        break;
    case 1:
        /* Mostly present: an absent chip makes the commands moot */
        qmp_ok(f->qts, qtest_qmp(f->qts, "{ 'execute': 'qom-set', "
                                 "'arguments': { 'path': %s, "
                                 "'property': 'x-spi-absent', 'value': %i } }",
                                 ENC_PATH, (int)(rnd(f, 4) == 0)));
        break;
    case 2:
        /* An unknown fault is refused */
        rsp = qtest_qmp(f->qts, "{ 'execute': 'qom-set', 'arguments': "
                        "{ 'path': %s, 'property': 'x-inject', "
                        "'value': 'no-such-fault' } }", ENC_PATH);
        g_assert(qdict_haskey(rsp, "error"));
        qobject_unref(rsp);
        break;
    default:
        qmp_ok(f->qts, qtest_qmp(f->qts, "{ 'execute': 'qom-set', "
                                 "'arguments': { 'path': %s, "
                                 "'property': 'x-inject', 'value': %s } }",
                                 ENC_PATH,
                                 faults[rnd(f, ARRAY_SIZE(faults))]));
        break;
    }
}

/* One instruction in a CS cycle of its own */
static void spi_cycle(QTestState *qts, const uint8_t *tx, size_t n)
{
    cs(qts, true);
    spi_bytes(qts, tx, n);
    cs(qts, false);
}

/*
 * A stretch of sane operation amid the noise, so that the chip moves
 * frames from whatever state the noise left it in (random commands reset
 * it every few dozen commands, and the link needs 1.3 ms after a reset):
 * a reset, reception on, the link up, frames both ways.
 */
static void sane_burst(Fuzz *f)
{
    static const uint8_t reset[] = { 0xca };            /* SETETHRST */
    static const uint8_t rx_on[] = { 0xe8 };            /* ENABLERX */
    static const uint8_t tx_go[] = { 0xd4 };            /* SETTXRTS */
    uint16_t len = 60 + rnd(f, 1455);
    uint8_t etxlen[] = { 0x22, 0x02, len & 0xff, len >> 8 };  /* WCRU */
    int i;

    cs(f->qts, false);
    /* the chip present and a partner on the wire, whatever came before */
    qmp_ok(f->qts, qtest_qmp(f->qts, "{ 'execute': 'qom-set', "
                             "'arguments': { 'path': %s, "
                             "'property': 'x-spi-absent', 'value': false } }",
                             ENC_PATH));
    qmp_ok(f->qts, qtest_qmp(f->qts, "{ 'execute': 'set_link', "
                             "'arguments': { 'name': 'n0', 'up': true } }"));
    spi_cycle(f->qts, reset, sizeof(reset));
    qtest_clock_step(f->qts, 25000);
    spi_cycle(f->qts, rx_on, sizeof(rx_on));
    /* PHY start-up, then the 1 ms negotiation of this test's board */
    qtest_clock_step(f->qts, 256000 + 1000000 + 10000);
    for (i = 0; i < 4; i++) {
        gen_frame(f);
    }
    net_pump(f);
    qtest_clock_step(f->qts, 200000);
    net_pump(f);
    spi_cycle(f->qts, etxlen, sizeof(etxlen));
    spi_cycle(f->qts, tx_go, sizeof(tx_go));
    qtest_clock_step(f->qts, 200000);
    net_pump(f);
    f->bursts++;
}

static void rare_event(Fuzz *f)
{
    switch (rnd(f, 4)) {
    case 0:
        f->links++;
        qmp_ok(f->qts, qtest_qmp(f->qts, "{ 'execute': 'set_link', "
                                 "'arguments': { 'name': 'n0', 'up': %i } }",
                                 (int)rnd(f, 2)));
        break;
    case 1:
        f->resets++;
        qmp_ok(f->qts, qtest_qmp(f->qts, "{ 'execute': 'system_reset' }"));
        qtest_qmp_eventwait(f->qts, "RESET");
        board_init(f->qts);
        /* the chip answers 25 us after a reset */
        qtest_clock_step(f->qts, 25000);
        break;
    case 2:
        qmp_ok(f->qts, qtest_qmp(f->qts, "{ 'execute': 'qom-get', "
                                 "'arguments': { 'path': %s, "
                                 "'property': 'x-spi-stats' } }", ENC_PATH));
        break;
    default:
        /* Let virtual time pass: MII BUSY, queued frames */
        /* qtest refuses a step of zero */
        qtest_clock_step(f->qts, 1 + rnd(f, 100000));
        break;
    }
}

static void test_fuzz(void)
{
    const char *env_n = g_getenv("ENCX_FUZZ_COMMANDS");
    const char *env_seed = g_getenv("ENCX_FUZZ_SEED");
    uint64_t n = env_n ? g_ascii_strtoull(env_n, NULL, 0) : 20000;
    uint32_t seed = env_seed ? g_ascii_strtoull(env_seed, NULL, 0) : 1;
    uint8_t buf[MAX_CMD_BYTES];
    gint64 t0 = g_get_monotonic_time();
    Fuzz f = { 0 };
    QDict *rsp, *ret;
    int sv[2];
    uint64_t i;
    size_t len;
    /*
     * By seed: paced with the driver tests' port buffer (the suite's
     * first seed), as the backend sends, paced with no port buffer, with
     * a small one
     */
    static const int wire_buffers[] = { 128 * 1024, -1, 0, 3036 };
    int wire_buffer = wire_buffers[(seed >> 1) % ARRAY_SIZE(wire_buffers)];
    bool rx_fcs, paced = wire_buffer >= 0;

    /* Odd seeds send frames as the wire's bytes: mostly bad CRCs, runts */
    rx_fcs = seed & 1;

    g_test_message("seed %u, %" PRIu64 " commands, x-rx-fcs=%s, "
                   "x-rx-pacing=%s, x-wire-buffer-bytes=%d", seed, n,
                   rx_fcs ? "on" : "off", paced ? "on" : "off",
                   MAX(wire_buffer, 0));
    f.rng = g_rand_new_with_seed(seed);
    f.backlog = g_byte_array_new();
    g_assert_cmpint(socketpair(PF_UNIX, SOCK_STREAM, 0, sv), ==, 0);
    f.fd = sv[0];
    f.qts = qtest_initf("-machine versatilepb "
                        "-nic socket,id=n0,fd=%d,model=encx24j600,"
                        "mac=52:54:00:12:34:56 "
                        "-global encx24j600.x-rx-fcs=%s "
                        "-global encx24j600.x-rx-pacing=%s "
                        "-global encx24j600.x-wire-buffer-bytes=%d "
                        "-global encx24j600.x-autoneg-delay-ms=1",
                        sv[1], rx_fcs ? "on" : "off", paced ? "on" : "off",
                        MAX(wire_buffer, 0));
    close(sv[1]);
    board_init(f.qts);
    /* the chip answers 25 us after power-on */
    qtest_clock_step(f.qts, 25000);

    for (i = 0; i < n; i++) {
        if (i == n / 2 || rnd(&f, 2048) == 0) {
            sane_burst(&f);
        }
        len = gen_command(&f, buf);
        cs(f.qts, true);
        spi_bytes(f.qts, buf, len);
        /* Sometimes CS stays low and the next command runs on */
        if (rnd(&f, 16)) {
            cs(f.qts, false);
        }
        f.commands++;
        f.bytes += len;
        if (rnd(&f, 64) == 0) {
            gen_frame(&f);
        }
        if ((i & 15) == 0) {
            net_pump(&f);
        }
        /*
         * Time passes as on a bus: resets end (25 us), MII operations
         * (25.6 us), frames leave the wire, the link negotiates (1 ms)
         */
        if ((i & 7) == 0) {
            qtest_clock_step(f.qts, 1000 + rnd(&f, 10000));
        }
        if (rnd(&f, 4096) == 0) {
            rare_event(&f);
        }
        if (rnd(&f, 512) == 0) {
            inject_fault(&f);
        }
        if ((i & 127) == 0) {
            /* The INT pin is readable and the GPIO block is sane */
            qtest_readl(f.qts, GPIO0_BASE + (GPIO_INT << 2));
        }
    }
    cs(f.qts, false);
    net_pump(&f);

    /* QEMU is alive and the model answers */
    rsp = qtest_qmp(f.qts, "{ 'execute': 'qom-get', 'arguments': "
                    "{ 'path': %s, 'property': 'x-spi-stats' } }", ENC_PATH);
    g_assert(qdict_haskey(rsp, "return"));
    ret = qdict_get_qdict(rsp, "return");
    g_assert_cmpuint(qdict_get_int(ret, "bytes"), >, 0);
    /* The chip was exercised, not held silent: it moved frames */
    g_assert_cmpuint(qdict_get_int(ret, "rx-frames") +
                     qdict_get_int(ret, "tx-frames"), >, 0);
    g_test_message("%" PRIu64 " commands, %" PRIu64 " SPI bytes, %" PRIu64
                   " frames (%" PRIu64 " bytes), %" PRIu64 " resets, %"
                   PRIu64 " link changes, %" PRIu64 " fault settings, %"
                   PRIu64 " sane stretches in %.1f s; model: %" PRId64
                   " rx-frames, %" PRId64 " tx-frames",
                   f.commands, f.bytes, f.frames, f.frame_bytes, f.resets,
                   f.links, f.faults, f.bursts,
                   (g_get_monotonic_time() - t0) / 1e6,
                   qdict_get_int(ret, "rx-frames"),
                   qdict_get_int(ret, "tx-frames"));
    qobject_unref(rsp);

    qtest_quit(f.qts);
    close(f.fd);
    g_byte_array_free(f.backlog, true);
    g_rand_free(f.rng);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("encx24j600/fuzz", test_fuzz);
    return g_test_run();
}
