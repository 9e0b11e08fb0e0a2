/*
 * Microchip ENCX24J600 (ENC424J600/ENC624J600) SPI Ethernet controller
 *
 * The chip is a 10/100 Ethernet MAC and PHY with 24 KiB of packet SRAM,
 * driven over SPI with a byte-oriented instruction set.  The model
 * implements the SPI instruction set (1-, 2-, 3- and N-byte instructions,
 * banked and unbanked SFR access, the three SRAM windows with their
 * pointer wrap rules), the SFR file, the receive ring with its receive
 * status vector, transmission, the DMA copy/checksum engine, the
 * interrupt logic and the MII management interface to the internal PHY.
 *
 * QEMU interface:
 *  + SSI peripheral, chip select active low (named GPIO input
 *    SSI_GPIO_CS); an N-byte instruction ends only when CS rises
 *  + unnamed GPIO output 0: the INT pin, active low (0 = asserted)
 *  + NIC properties (macaddr is the factory MAC loaded into MAADR)
 *  + property "x-autoneg-delay-ms": how long the PHY takes to bring the
 *    link up after a reset, QEMU's link coming up or the guest restarting
 *    the PHY (default 2000, as on silicon; tests may shorten it)
 * test machinery {
 *
 * Test machinery, for driver tests (the "x-" properties):
 *  + QOM property "x-spi-stats" (read-only): SPI transaction accounting
 *  + QOM property "x-reset-stats" (write true to zero the counters)
 *  + property "x-rx-pacing": received frames arrive at most at the link
 *    speed, as on a wire (default off: as fast as the backend sends)
 *  + property "x-wire-buffer-bytes": the link partner's port buffer,
 *    which holds received frames while the paced wire is busy (default
 *    0: a frame that finds the wire busy is lost; needs x-rx-pacing)
 *  + property "x-rx-fcs": frames from the net backend end with their own
 *    FCS, which the model checks instead of computing a good one; a
 *    test peer can then send frames with a bad CRC and true runts
 *  + property "x-factory-mac-blank": a part whose factory MAC is blank,
 *    MAADR resets to zero and the driver must choose an address
 *  + QOM properties "x-inject", "x-int-stuck" and "x-spi-absent":
 *    host-side fault injection (not migrated)
 * } test machinery
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/net/encx24j600.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "net/eth.h"
#include "qapi/error.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/timer.h"
/* test machinery { */
#include "qapi/visitor.h"
#include "qemu/units.h"
/* } test machinery */
#include "trace.h"
#include <zlib.h>

/* SFR addresses (absolute, i.e. unbanked) */
#define ETXST       0x00
#define ETXLEN      0x02
#define ERXST       0x04
#define ERXTAIL     0x06
#define ERXHEAD     0x08
#define EDMAST      0x0a
#define EDMALEN     0x0c
#define EDMADST     0x0e
#define EDMACS      0x10
#define ETXSTAT     0x12
#define ETXWIRE     0x14
#define EUDAST      0x16
#define EUDAND      0x18
#define ESTAT       0x1a
#define EIR         0x1c
#define ECON1       0x1e
#define EHT1        0x20
#define EHT2        0x22
#define EHT3        0x24
#define EHT4        0x26
#define EPMM1       0x28
#define EPMCS       0x30
#define EPMO        0x32
#define ERXFCON     0x34
#define MACON1      0x40
#define MACON2      0x42
#define MABBIPG     0x44
#define MAIPG       0x46
#define MACLCON     0x48
#define MAMXFL      0x4a
#define MICMD       0x52
#define MIREGADR    0x54
#define MAADR3      0x60
#define MAADR2      0x62
#define MAADR1      0x64
#define MIWR        0x66
#define MIRD        0x68
#define MISTAT      0x6a
#define EPAUS       0x6c
#define ECON2       0x6e
#define ERXWM       0x70
#define EIE         0x72
#define EIDLED      0x74
#define EGPDATA     0x80
#define ERXDATA     0x82
#define EUDADATA    0x84
#define EGPRDPT     0x86
#define EGPWRPT     0x88
#define ERXRDPT     0x8a
#define ERXWRPT     0x8c
#define EUDARDPT    0x8e
#define EUDAWRPT    0x90

/* ESTAT */
#define ESTAT_INT       (1 << 15)
#define ESTAT_FCIDLE    (1 << 14)
#define ESTAT_CLKRDY    (1 << 12)
#define ESTAT_RSTDONE   (1 << 11)
#define ESTAT_PHYDPX    (1 << 10)
#define ESTAT_PHYRDY    (1 << 9)
#define ESTAT_PHYLNK    (1 << 8)

/* EIR and EIE */
#define EIR_CRYPTEN     (1 << 15)
#define EIR_LINKIF      (1 << 11)
#define EIR_PKTIF       (1 << 6)
#define EIR_DMAIF       (1 << 5)
#define EIR_TXIF        (1 << 3)
#define EIR_TXABTIF     (1 << 2)
#define EIR_RXABTIF     (1 << 1)
#define EIR_PCFULIF     (1 << 0)
#define EIR_WRITABLE    0xfc2f
#define EIE_INTIE       (1 << 15)

/* ECON1 */
#define ECON1_MODEXST   (1 << 15)
#define ECON1_AESST     (1 << 11)
#define ECON1_PKTDEC    (1 << 8)
#define ECON1_FCOP_MASK (3 << 6)
#define ECON1_FCOP_SINGLE   (1 << 6)
#define ECON1_FCOP_MULTIPLE (2 << 6)
#define ECON1_FCOP_CLEAR    (3 << 6)
#define ECON1_DMAST     (1 << 5)
#define ECON1_DMACPY    (1 << 4)
#define ECON1_DMACSSD   (1 << 3)
#define ECON1_DMANOCS   (1 << 2)
#define ECON1_TXRTS     (1 << 1)
#define ECON1_RXEN      (1 << 0)

/* ECON2 */
#define ECON2_ETHEN     (1 << 15)
#define ECON2_STRCH     (1 << 14)
#define ECON2_TXMAC     (1 << 13)
#define ECON2_COCON     (0xf << 8)
#define ECON2_AUTOFC    (1 << 7)
#define ECON2_TXRST     (1 << 6)
#define ECON2_RXRST     (1 << 5)
#define ECON2_ETHRST    (1 << 4)

/* ERXFCON */
#define ERXFCON_HTEN    (1 << 15)
#define ERXFCON_MPEN    (1 << 14)
#define ERXFCON_PMEN    (0xf << 8)
#define ERXFCON_CRCEEN  (1 << 7)
#define ERXFCON_CRCEN   (1 << 6)
#define ERXFCON_RUNTEEN (1 << 5)
#define ERXFCON_RUNTEN  (1 << 4)
#define ERXFCON_UCEN    (1 << 3)
#define ERXFCON_NOTMEEN (1 << 2)
#define ERXFCON_MCEN    (1 << 1)
#define ERXFCON_BCEN    (1 << 0)

/* MACON1, MACON2 */
#define MACON1_LOOPBK   (1 << 4)
#define MACON1_RXPAUS   (1 << 2)
#define MACON1_PASSALL  (1 << 1)
#define MACON2_TXCRCEN  (1 << 4)
#define MACON2_HFRMEN   (1 << 2)
#define MACON2_FULDPX   (1 << 0)

/* MICMD, MISTAT */
#define MICMD_MIISCAN   (1 << 1)
#define MICMD_MIIRD     (1 << 0)
#define MISTAT_SCAN     (1 << 1)
#define MISTAT_BUSY     (1 << 0)

/* One MII management operation takes 25.6 us */
#define MII_BUSY_NS     25600

/* The MII operation under way (mii_op) */
enum { MII_OP_NONE, MII_OP_READ, MII_OP_WRITE, MII_OP_READ_UNANSWERED };

/*
 * After SETETHRST or ECON2.ETHRST the chip does not answer on SPI for
 * 25 us, and the PHY is not ready for 256 us: the least waits of the
 * reset procedure as drivers implement it (chip-facts 7.1 steps 4 and 6;
 * Linux and Harmony wait that long, MLA 30 us and 1 ms).  The same after
 * power-on, and what the bus and the PHY do meanwhile, are the model's
 * choices (docs/qemu-model.md).
 */
#define RESET_SPI_NS    25000
#define RESET_PHY_NS    256000

/*
 * Autonegotiation, from the PHY's start to the link up: not documented
 * for this chip; 10/100 PHYs take 1-3 s.  The property shortens it for
 * tests.
 */
#define AUTONEG_DELAY_MS_DEFAULT 2000

/* One byte on the wire: 80 ns at 100 Mbit/s, 800 ns at 10 Mbit/s */
#define WIRE_BYTE_NS_100    80
#define WIRE_BYTE_NS_10     800

/* test machinery { */
#define WIRE_BUFFER_BYTES_MAX     (64 * MiB)
/* } test machinery */

/* ETXSTAT */
#define ETXSTAT_MAXCOL  (1 << 9)
#define ETXSTAT_CRCBAD  (1 << 4)

/* PHY registers */
#define PHCON1          0x00
#define PHSTAT1         0x01
#define PHANA           0x04
#define PHANLPA         0x05
#define PHANE           0x06
#define PHCON2          0x11
#define PHSTAT2         0x1b
#define PHSTAT3         0x1f

#define PHCON1_PRST     (1 << 15)
#define PHCON1_PLOOPBK  (1 << 14)
#define PHCON1_SPD100   (1 << 13)
#define PHCON1_ANEN     (1 << 12)
#define PHCON1_PSLEEP   (1 << 11)
#define PHCON1_RENEG    (1 << 9)
#define PHCON1_PFULDPX  (1 << 8)
#define PHSTAT1_ABLE    0x7809  /* 100FD, 100HD, 10FD, 10HD, ANABLE, EXTREGS */
#define PHSTAT1_ANDONE  (1 << 5)
#define PHSTAT1_LLSTAT  (1 << 2)
#define PHANA_RESET     0x01e1
#define PHANA_100FD     (1 << 8)
#define PHANA_100       (1 << 7)
#define PHANA_10FD      (1 << 6)
#define PHANLPA_PARTNER 0x45e1  /* ACK, symmetric pause, 10/100 HD/FD */
#define PHANE_LPARCD    (1 << 1)
#define PHANE_LPANABL   (1 << 0)
#define PHSTAT3_FULL    (1 << 4)
#define PHSTAT3_100     (1 << 3)
#define PHSTAT3_10      (1 << 2)

/* Device identification in EIDLED: DEVID 1, REVID 2 (rev. A2 silicon) */
#define EIDLED_RESET    0x0022

#define ETH_P_MACCTRL   0x8808
#define MACCTRL_PAUSE   0x0001
/* A pause quantum is 512 bit times: 64 bytes on the wire */
#define PAUSE_QUANTUM_BYTES 64
/*
 * duplex_logged: the MAC/link duplex mismatch last logged (bit 0 set, the
 * MAC's duplex in bit 1, the link's in bit 2), or both half duplex
 */
#define DUPLEX_LOGGED_HALF  0x80
/* ERXWM's watermarks count 96-byte units */
#define ERXWM_UNIT      96

#define SRAM_END        (ENCX24J600_SRAM_SIZE - 1)
#define PTR_MASK        0x7fff
#define RSV_SIZE        6
#define ETH_MIN_NOFCS   60
#define ETH_FCS_LEN     4
#define ETH_PREAMBLE_LEN 8      /* preamble and start-of-frame delimiter */
#define ETH_IFG_LEN     12      /* minimum inter-frame gap */

/* SPI state machine */
enum {
    SPI_OPCODE,     /* the next byte is an opcode */
    SPI_RBSEL,      /* RBSEL data byte */
    SPI_PTR_LO,     /* 3-byte pointer instruction, low byte */
    SPI_PTR_HI,     /* 3-byte pointer instruction, high byte */
    SPI_SFR,        /* banked RCR/WCR/BFS/BFC data */
    SPI_UADDR,      /* unbanked instruction, address byte */
    SPI_USFR,       /* unbanked RCRU/WCRU/BFSU/BFCU data */
    SPI_SRAM,       /* SRAM window data */
    SPI_IGNORE,     /* unknown opcode: ignore until CS rises */
    SPI_RESETTING,  /* a cycle begun during a reset: MISO not driven */
};

enum { OP_READ, OP_WRITE, OP_SET, OP_CLR };

static const char *const enc_class_name[ENCX24J600_CLASS__MAX] = {
    [ENCX24J600_CLASS_BANK_SELECT] = "bank-select",
    [ENCX24J600_CLASS_RBSEL] = "rbsel",
    [ENCX24J600_CLASS_COMMAND] = "command",
    [ENCX24J600_CLASS_POINTER_READ] = "pointer-read",
    [ENCX24J600_CLASS_POINTER_WRITE] = "pointer-write",
    [ENCX24J600_CLASS_RCR] = "rcr",
    [ENCX24J600_CLASS_WCR] = "wcr",
    [ENCX24J600_CLASS_BFS] = "bfs",
    [ENCX24J600_CLASS_BFC] = "bfc",
    [ENCX24J600_CLASS_RCRU] = "rcru",
    [ENCX24J600_CLASS_WCRU] = "wcru",
    [ENCX24J600_CLASS_BFSU] = "bfsu",
    [ENCX24J600_CLASS_BFCU] = "bfcu",
    [ENCX24J600_CLASS_SRAM_READ] = "sram-read",
    [ENCX24J600_CLASS_SRAM_WRITE] = "sram-write",
    [ENCX24J600_CLASS_UNKNOWN] = "unknown",
};

/* test machinery { */
static const char *const enc_fault_name[ENCX24J600_FAULT__MAX] = {
    [ENCX24J600_FAULT_RX_BAD_RSV] = "rx-bad-rsv",
    [ENCX24J600_FAULT_RX_NEXT_ODD] = "rx-next-odd",
    [ENCX24J600_FAULT_RX_NEXT_OUTSIDE] = "rx-next-outside",
    [ENCX24J600_FAULT_RX_PAST_HEAD] = "rx-past-head",
    [ENCX24J600_FAULT_TX_ABORT] = "tx-abort",
    [ENCX24J600_FAULT_TX_LINK_LOSS] = "tx-link-loss",
    [ENCX24J600_FAULT_CHIP_RESET] = "chip-reset",
    [ENCX24J600_FAULT_INT_STUCK] = "int-stuck",
    [ENCX24J600_FAULT_SPI_ABSENT] = "spi-absent",
};

/* How much longer than the stored frame an rx-past-head header claims */
#define PAST_HEAD_BYTES     64

/* The faults that the "inject" property arms */
#define FAULT_INJECT_LAST   ENCX24J600_FAULT_CHIP_RESET

static void enc_wire_buf_drop(ENCX24J600State *s, bool count);
/* } test machinery */

static void enc_phy_restart(ENCX24J600State *s);
static bool enc_fc_asserted(ENCX24J600State *s);
static void enc_autofc_check(ENCX24J600State *s);
static void enc_link_change(ENCX24J600State *s, bool up);
static void enc_update(ENCX24J600State *s);
static void enc_tx_abort(ENCX24J600State *s, bool flag);
static void enc_tx_wire(ENCX24J600State *s);

/*
 * How long a frame of size bytes (without FCS) occupies the wire at the
 * link speed: preamble and SFD, the frame padded to 60 bytes, the FCS and
 * the inter-frame gap
 */
static int64_t enc_wire_ns(ENCX24J600State *s, size_t size)
{
    int64_t bytes = ETH_PREAMBLE_LEN + MAX(size, ETH_MIN_NOFCS) +
                    ETH_FCS_LEN + ETH_IFG_LEN;

    return bytes * (s->link_fast ? WIRE_BYTE_NS_100 : WIRE_BYTE_NS_10);
}

static uint16_t sfr16(ENCX24J600State *s, unsigned reg)
{
    return lduw_le_p(&s->sfr[reg & 0xfe]);
}

static void sfr16_set(ENCX24J600State *s, unsigned reg, uint16_t val)
{
    stw_le_p(&s->sfr[reg & 0xfe], val);
}

/*
 * Offsets 0x16-0x1f of every bank are the common registers EUDAST, EUDAND,
 * ESTAT, EIR and ECON1, also when addressed through the unbanked
 * instructions.
 */
static unsigned enc_canon(unsigned a)
{
    if (a < 0x80 && (a & 0x1f) >= 0x16) {
        return a & 0x1f;
    }
    return a;
}

static bool enc_is_mac_reg(unsigned a)
{
    return (a >= 0x40 && a < 0x56) || (a >= 0x60 && a < 0x6c);
}

static bool enc_is_unimplemented(unsigned a)
{
    return a >= ENCX24J600_SFR_SIZE ||
        (a >= 0x4c && a < 0x52) ||
        (a >= EGPDATA && a < EGPRDPT) ||
        a >= 0x92;
}

/* PHY */

static void enc_phy_mode(ENCX24J600State *s, bool *full, bool *fast)
{
    uint16_t phcon1 = s->phy[PHCON1];

    if (phcon1 & PHCON1_ANEN) {
        uint16_t common = s->phy[PHANA] & PHANLPA_PARTNER;

        if (common & PHANA_100FD) {
            *full = true;
            *fast = true;
        } else if (common & PHANA_100) {
            *full = false;
            *fast = true;
        } else if (common & PHANA_10FD) {
            *full = true;
            *fast = false;
        } else {
            *full = false;
            *fast = false;
        }
    } else {
        *full = !!(phcon1 & PHCON1_PFULDPX);
        *fast = !!(phcon1 & PHCON1_SPD100);
    }
}

static void enc_phy_reset(ENCX24J600State *s)
{
    memset(s->phy, 0, sizeof(s->phy));
    s->phy[PHCON1] = PHCON1_ANEN;
    s->phy[PHANA] = PHANA_RESET;
    s->llstat_low = false;
}

static uint16_t enc_phy_read(ENCX24J600State *s, unsigned reg)
{
    bool an = !!(s->phy[PHCON1] & PHCON1_ANEN);
    uint16_t val = 0;

    switch (reg) {
    case PHCON1:
    case PHANA:
    case PHCON2:
        val = s->phy[reg];
        break;
    case PHSTAT1:
        val = PHSTAT1_ABLE;
        if (s->link_up && an) {
            val |= PHSTAT1_ANDONE;
        }
        if (s->link_up && !s->llstat_low) {
            val |= PHSTAT1_LLSTAT;
        }
        s->llstat_low = false;
        break;
    case PHANLPA:
        val = (s->link_up && an) ? PHANLPA_PARTNER : 0;
        break;
    case PHANE:
        val = (s->link_up && an) ? (PHANE_LPARCD | PHANE_LPANABL) : 0;
        break;
    case PHSTAT3:
        if (s->link_up) {
            val = (s->link_full ? PHSTAT3_FULL : 0) |
                  (s->link_fast ? PHSTAT3_100 : PHSTAT3_10);
        }
        break;
    default:
        break;
    }
    trace_encx24j600_phy_read(reg, val);
    return val;
}

/*
 * A PHCON1 write changes the link configuration if it toggles ANEN, or
 * changes SPD100 or PFULDPX with ANEN clear (with ANEN set they are not
 * used), or restarts autonegotiation (RENEG with ANEN set).
 */
static bool enc_phcon1_restarts(uint16_t old, uint16_t val)
{
    uint16_t diff = old ^ val;

    if (diff & PHCON1_ANEN) {
        return true;
    }
    if (val & PHCON1_ANEN) {
        return !!(val & PHCON1_RENEG);
    }
    return !!(diff & (PHCON1_SPD100 | PHCON1_PFULDPX));
}

static void enc_phy_write(ENCX24J600State *s, unsigned reg, uint16_t val)
{
    uint16_t old;

    trace_encx24j600_phy_write(reg, val);
    switch (reg) {
    case PHCON1:
        old = s->phy[PHCON1];
        if (val & PHCON1_PRST) {
            enc_phy_reset(s);
            enc_phy_restart(s);
            return;
        }
        /* PRST and RENEG are self-clearing */
        s->phy[PHCON1] = val & ~(PHCON1_PRST | PHCON1_RENEG);
        if ((val & PHCON1_PLOOPBK) && !(old & PHCON1_PLOOPBK)) {
            qemu_log_mask(LOG_UNIMP, "encx24j600: PHY loopback "
                          "(PHCON1.PLOOPBK) not implemented: frames go to "
                          "the link\n");
        }
        if (val & PHCON1_PSLEEP) {
            /*
             * Powered down: the link is lost as on a real loss (LINKIF,
             * LLSTAT), and stays down whatever the partner does
             */
            if (!(old & PHCON1_PSLEEP)) {
                timer_del(s->autoneg_timer);
                enc_link_change(s, false);
                enc_update(s);
            }
        } else if ((old & PHCON1_PSLEEP) || enc_phcon1_restarts(old, val)) {
            /*
             * Woken, the PHY negotiates again; the link drops while it
             * negotiates a new mode
             */
            enc_phy_restart(s);
        }
        break;
    case PHANA:
    case PHCON2:
        s->phy[reg] = val;
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR,
                      "encx24j600: write to read-only PHY register 0x%x\n",
                      reg);
        break;
    }
}

/* Interrupts and status */

static uint16_t enc_estat(ENCX24J600State *s)
{
    uint16_t v = ESTAT_CLKRDY | ESTAT_RSTDONE | s->pktcnt;

    if (!enc_fc_asserted(s)) {
        v |= ESTAT_FCIDLE;
    }

    if (qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) >= s->phy_ready_at) {
        v |= ESTAT_PHYRDY;
    }

    if (s->link_up) {
        v |= ESTAT_PHYLNK | (s->link_full ? ESTAT_PHYDPX : 0);
    }
    if (sfr16(s, EIR) & sfr16(s, EIE) & 0x7fff) {
        v |= ESTAT_INT;
    }
    return v;
}

static void enc_update(ENCX24J600State *s)
{
    uint16_t eir = sfr16(s, EIR);
    bool asserted;

    if (s->pktcnt) {
        eir |= EIR_PKTIF;
    } else {
        eir &= ~EIR_PKTIF;
    }
    sfr16_set(s, EIR, eir);
    sfr16_set(s, ESTAT, enc_estat(s));

    asserted = (sfr16(s, EIE) & EIE_INTIE) && (sfr16(s, ESTAT) & ESTAT_INT);
    /* test machinery { */
    /* Fault injection: the pin held low whatever EIE and EIR say */
    asserted |= s->int_stuck;
    /* } test machinery */
    /* The pin is active low; during a system reset, hold drives it */
    if (s->int_level != !asserted) {
        s->int_level = !asserted;
        if (!device_is_in_reset(DEVICE(s))) {
            trace_encx24j600_int(asserted);
            qemu_set_irq(s->int_out, s->int_level);
        }
    }
}

static void enc_set_eir(ENCX24J600State *s, uint16_t flags)
{
    uint16_t old = sfr16(s, EIR);

    sfr16_set(s, EIR, old | flags);
    /* test machinery { */
    /* an event on a flag that is still up is one no host can tell apart */
    s->eir_unread |= flags & ~old;
    /* } test machinery */
}

/* test machinery { */
/*
 * The host clears EIR flags: one it has not read since it was raised is
 * an event it never saw (a read-modify-write of EIR writes back as 0 a
 * flag raised between its read and its write; BFC cannot do that).
 */
static void enc_eir_cleared(ENCX24J600State *s, uint16_t cleared)
{
    uint16_t lost = cleared & s->eir_unread;

    if (lost) {
        trace_encx24j600_eir_lost(lost);
        s->stats.eir_flags_lost += ctpop16(lost);
    }
    s->eir_unread &= ~cleared;
}

/* Fault injection */

static void enc_fault_count(ENCX24J600State *s, ENCX24J600Fault f)
{
    trace_encx24j600_fault(enc_fault_name[f]);
    s->stats.injected[f]++;
}

/* Consume an armed one-shot fault */
static bool enc_fault_take(ENCX24J600State *s, ENCX24J600Fault f)
{
    if (!(s->faults_armed & BIT(f))) {
        return false;
    }
    s->faults_armed &= ~BIT(f);
    enc_fault_count(s, f);
    return true;
}
/* } test machinery */

/* Link */

/* The link partner is there while QEMU's link is up */
static bool enc_partner_present(ENCX24J600State *s)
{
    return s->nic && !qemu_get_queue(s->nic)->link_down;
}

static void enc_link_change(ENCX24J600State *s, bool up)
{
    if (up == s->link_up) {
        return;
    }
    trace_encx24j600_link(up);
    s->link_up = up;
    if (!up) {
        s->llstat_low = true;
        /* A frame on the wire is cut off */
        if (timer_pending(s->tx_timer)) {
            enc_tx_abort(s, true);
        }
        /* The partner that asked for a pause is gone: wait for a link */
        timer_del(s->pause_timer);
        if (s->tx_paused) {
            s->tx_paused = false;
            s->tx_waiting = true;
        }
        /* test machinery { */
        /* The partner's port buffer is lost with the link */
        enc_wire_buf_drop(s, true);
        /* } test machinery */
    }
    enc_set_eir(s, EIR_LINKIF);
    if (up && s->tx_waiting) {
        s->tx_waiting = false;
        enc_tx_wire(s);
    }
}

/*
 * The PHY negotiates with the partner, if there is one, from now or from
 * when it is ready after a reset: the link comes up autoneg-delay-ms later
 * in the mode that the PHY registers select at that moment.
 */
static void enc_autoneg_start(ENCX24J600State *s)
{
    int64_t start = MAX(qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL),
                        s->phy_ready_at);

    /*
     * While a reset is held the PHY waits: the release starts it.  A PHY
     * powered down (PSLEEP) does not negotiate: waking it does.
     */
    if (s->phy_ready_at == INT64_MAX || (s->phy[PHCON1] & PHCON1_PSLEEP)) {
        timer_del(s->autoneg_timer);
        return;
    }
    if (enc_partner_present(s)) {
        trace_encx24j600_autoneg_start(s->autoneg_delay_ms);
        timer_mod(s->autoneg_timer,
                  start + (int64_t)s->autoneg_delay_ms * SCALE_MS);
    } else {
        timer_del(s->autoneg_timer);
    }
}

/* The PHY restarts negotiating: the link is down at once */
static void enc_phy_restart(ENCX24J600State *s)
{
    enc_link_change(s, false);
    enc_autoneg_start(s);
    enc_update(s);
}

static void enc_autoneg_done(void *opaque)
{
    ENCX24J600State *s = opaque;

    if (!enc_partner_present(s) || (s->phy[PHCON1] & PHCON1_PSLEEP)) {
        return;
    }
    enc_phy_mode(s, &s->link_full, &s->link_fast);
    trace_encx24j600_autoneg_done(s->link_fast, s->link_full);
    enc_link_change(s, true);
    enc_update(s);
}

/* SRAM pointers */

static uint8_t enc_sram_get(ENCX24J600State *s, unsigned addr)
{
    return addr < ENCX24J600_SRAM_SIZE ? s->sram[addr] : 0;
}

static void enc_sram_put(ENCX24J600State *s, unsigned addr, uint8_t val)
{
    if (addr < ENCX24J600_SRAM_SIZE) {
        s->sram[addr] = val;
    }
}

static unsigned enc_rx_start(ENCX24J600State *s)
{
    return sfr16(s, ERXST) & (PTR_MASK & ~1);
}

/* Eq. 3-1: the general purpose window wraps at ERXST - 1 and at the end */
static unsigned enc_next_gp(ENCX24J600State *s, unsigned p)
{
    if (p == SRAM_END || p + 1 == enc_rx_start(s)) {
        return 0;
    }
    return (p + 1) & PTR_MASK;
}

/* Eq. 3-2: the receive window wraps from the end to ERXST */
static unsigned enc_next_rx(ENCX24J600State *s, unsigned p)
{
    if (p == SRAM_END) {
        return enc_rx_start(s);
    }
    return (p + 1) & PTR_MASK;
}

/*
 * The user-defined area in force: EUDAST < EUDAND, both in the SRAM.  One
 * parked outside the SRAM (drivers use 0x6000/0x6001) is none, and so is
 * one of a single byte or less (EUDAST >= EUDAND, as after reset).
 */
static bool enc_in_uda(ENCX24J600State *s, unsigned p)
{
    unsigned st = sfr16(s, EUDAST) & PTR_MASK;
    unsigned nd = sfr16(s, EUDAND) & PTR_MASK;

    return st < nd && nd <= SRAM_END && p >= st && p <= nd;
}

/*
 * The user-defined area wraps from EUDAND to EUDAST and takes priority:
 * within it no other wrap applies (one that spans ERXST runs on across it)
 */
static unsigned enc_next_uda(ENCX24J600State *s, unsigned p)
{
    if (p == (sfr16(s, EUDAND) & PTR_MASK)) {
        return sfr16(s, EUDAST) & PTR_MASK;
    }
    if (enc_in_uda(s, p)) {
        return p + 1;
    }
    return enc_next_gp(s, p);
}

/*
 * The areas of the SRAM, each with its wrap rule: the general purpose
 * buffer below ERXST, the receive buffer from ERXST to the end, and the
 * user-defined area EUDAST..EUDAND, which takes priority where it lies.
 * An SPI window has a fixed area; an engine (TX, DMA) follows the area its
 * start address is in, chosen once per operation: DS 9.1 for TX; the DMA
 * source and destination each so by analogy (chip-facts 8.1 suggests it
 * for a source in the receive buffer).
 */
typedef enum {
    ENC_AREA_GP,
    ENC_AREA_RX,
    ENC_AREA_UDA,
} ENCArea;

static unsigned enc_next_in(ENCX24J600State *s, ENCArea area, unsigned p)
{
    switch (area) {
    case ENC_AREA_RX:
        return enc_next_rx(s, p);
    case ENC_AREA_UDA:
        return enc_next_uda(s, p);
    default:
        return enc_next_gp(s, p);
    }
}

static ENCArea enc_area_of(ENCX24J600State *s, unsigned p)
{
    if (enc_in_uda(s, p)) {
        return ENC_AREA_UDA;
    }
    return p >= enc_rx_start(s) ? ENC_AREA_RX : ENC_AREA_GP;
}

static unsigned enc_next_ptr(ENCX24J600State *s, unsigned ptr_reg, unsigned p)
{
    switch (ptr_reg) {
    case ERXRDPT:
    case ERXWRPT:
        return enc_next_in(s, ENC_AREA_RX, p);
    case EUDARDPT:
    case EUDAWRPT:
        return enc_next_in(s, ENC_AREA_UDA, p);
    default:
        return enc_next_in(s, ENC_AREA_GP, p);
    }
}

/*
 * Receive path.  The wire does not wait for the receiver: a frame that
 * arrives while reception is off is dropped (enc_rx_take), so the model
 * never asks QEMU to hold frames back (no can_receive).
 */

static void enc_rx_take(ENCX24J600State *s, const uint8_t *buf, size_t size);

/* test machinery { */

/*
 * The link partner's port buffer: frames that arrive while the wire is
 * busy wait there, up to wire-buffer-bytes (each frame counts as its
 * length on the wire with FCS, at least 64 bytes); a frame that does not
 * fit is dropped, as a switch drops at a full egress port.
 */
static size_t enc_wire_frame_bytes(size_t size)
{
    return MAX(size, ETH_MIN_NOFCS) + ETH_FCS_LEN;
}

static void enc_wire_buf_drop(ENCX24J600State *s, bool count)
{
    ENCX24J600WireFrame *f;

    while ((f = QSIMPLEQ_FIRST(&s->wire_buf))) {
        QSIMPLEQ_REMOVE_HEAD(&s->wire_buf, next);
        if (count) {
            trace_encx24j600_rx_wire_drop(f->size, s->wire_buf_bytes);
            s->stats.rx_wire_dropped++;
        }
        g_free(f);
    }
    s->wire_buf_bytes = 0;
}

/*
 * Take the frame at the head of the port buffer if the wire is free; the
 * rx_timer calls this again when the wire becomes free.
 */
static void enc_wire_buf_flush(ENCX24J600State *s)
{
    ENCX24J600WireFrame *f = QSIMPLEQ_FIRST(&s->wire_buf);
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    if (f && !s->link_up) {
        enc_wire_buf_drop(s, true);
        f = NULL;
    }
    if (f && now >= s->rx_wire_free) {
        QSIMPLEQ_REMOVE_HEAD(&s->wire_buf, next);
        s->wire_buf_bytes -= enc_wire_frame_bytes(f->size);
        enc_rx_take(s, f->data, f->size);
        g_free(f);
    }
    if (!QSIMPLEQ_EMPTY(&s->wire_buf)) {
        timer_mod(s->rx_timer, MAX(s->rx_wire_free, now));
    }
}

static void enc_rx_wire_free(void *opaque)
{
    ENCX24J600State *s = opaque;

    /* After a load, this is where the INT pin is re-evaluated */
    enc_update(s);
    enc_wire_buf_flush(s);
}

/* The wire is busy, or frames wait: the frame joins the port buffer */
static bool enc_wire_buf_put(ENCX24J600State *s, const uint8_t *buf,
                             size_t size)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    ENCX24J600WireFrame *f;
    size_t bytes;

    if (QSIMPLEQ_EMPTY(&s->wire_buf) && now >= s->rx_wire_free) {
        return false;
    }
    bytes = enc_wire_frame_bytes(size);
    if (bytes > s->wire_buffer_bytes - s->wire_buf_bytes) {
        trace_encx24j600_rx_wire_drop(size, s->wire_buf_bytes);
        s->stats.rx_wire_dropped++;
        return true;
    }
    f = g_malloc(sizeof(*f) + size);
    f->size = size;
    memcpy(f->data, buf, size);
    QSIMPLEQ_INSERT_TAIL(&s->wire_buf, f, next);
    s->wire_buf_bytes += bytes;
    s->stats.rx_wire_buffered++;
    trace_encx24j600_rx_defer(size, MAX(s->rx_wire_free - now, 0));
    timer_mod(s->rx_timer, MAX(s->rx_wire_free, now));
    return true;
}
/* } test machinery */

static bool enc_magic_match(const uint8_t *buf, size_t size,
                            const uint8_t *mac)
{
    size_t i, j;

    for (i = ETH_HLEN; i + 6 + 16 * ETH_ALEN <= size; i++) {
        if (memcmp(buf + i, "\xff\xff\xff\xff\xff\xff", 6)) {
            continue;
        }
        for (j = 0; j < 16; j++) {
            if (memcmp(buf + i + 6 + j * ETH_ALEN, mac, ETH_ALEN)) {
                break;
            }
        }
        if (j == 16) {
            return true;
        }
    }
    return false;
}

static void enc_get_mac(ENCX24J600State *s, uint8_t *mac)
{
    mac[0] = s->sfr[MAADR1];
    mac[1] = s->sfr[MAADR1 + 1];
    mac[2] = s->sfr[MAADR2];
    mac[3] = s->sfr[MAADR2 + 1];
    mac[4] = s->sfr[MAADR3];
    mac[5] = s->sfr[MAADR3 + 1];
}

static void enc_set_mac(ENCX24J600State *s, const uint8_t *mac)
{
    s->sfr[MAADR1] = mac[0];
    s->sfr[MAADR1 + 1] = mac[1];
    s->sfr[MAADR2] = mac[2];
    s->sfr[MAADR2 + 1] = mac[3];
    s->sfr[MAADR3] = mac[4];
    s->sfr[MAADR3 + 1] = mac[5];
}

/*
 * Apply the receive filters.  Returns 0 if the frame is rejected,
 * otherwise the filter-match bits 31-36 of the receive status vector and
 * either Received OK or CRC error.  A frame is accepted if a collect
 * filter matches and no reject filter (CRCEN, RUNTEN) fires.
 */
static uint64_t enc_rx_filter(ENCX24J600State *s, const uint8_t *buf,
                              size_t size, bool crc_bad, bool runt)
{
    uint16_t fcon = sfr16(s, ERXFCON);
    uint8_t mac[ETH_ALEN];
    uint64_t match = 0;
    bool accept = false;

    enc_get_mac(s, mac);
    if (is_multicast_ether_addr(buf)) {
        if (is_broadcast_ether_addr(buf)) {
            accept |= !!(fcon & ERXFCON_BCEN);
        }
        /* MCEN takes every frame with the group bit set */
        accept |= !!(fcon & ERXFCON_MCEN);
    } else if (!memcmp(buf, mac, ETH_ALEN)) {
        if (fcon & ERXFCON_UCEN) {
            accept = true;
            match |= 1ULL << 36;
        }
    } else if (fcon & ERXFCON_NOTMEEN) {
        accept = true;
        match |= 1ULL << 32;
    }
    /*
     * DS 10.9: the hash table takes frames for chosen destinations, of
     * any kind, unicast too, "without accepting all Not-Me traffic"
     */
    if (fcon & ERXFCON_HTEN) {
        unsigned idx = (net_crc32(buf, ETH_ALEN) >> 23) & 0x3f;
        uint16_t eht = sfr16(s, EHT1 + 2 * (idx >> 4));

        if (eht & (1 << (idx & 15))) {
            accept = true;
            match |= 1ULL << 33;
        }
    }
    /*
     * A Magic Packet wakes this station only: its destination is MAADR
     * (inferred from the ENC28J60's DS 8.3, whose filter says so)
     */
    if ((fcon & ERXFCON_MPEN) && !memcmp(buf, mac, ETH_ALEN) &&
        enc_magic_match(buf, size, mac)) {
        accept = true;
        match |= 1ULL << 34;
    }
    /*
     * Without rx-fcs, frames from the backend are never runts and never
     * have a bad CRC: the model pads them and computes their FCS.
     */
    if (crc_bad) {
        if (fcon & ERXFCON_CRCEN) {
            return 0;
        }
        accept |= !!(fcon & ERXFCON_CRCEEN);
    }
    if (runt) {
        if (fcon & ERXFCON_RUNTEN) {
            return 0;
        }
        if (fcon & ERXFCON_RUNTEEN) {
            accept = true;
            match |= 1ULL << 31;
        }
    }
    if (!accept) {
        return 0;
    }
    return match | (crc_bad ? 1ULL << 20 : 1ULL << 23);
}

static void enc_ring_put(ENCX24J600State *s, unsigned *pos, uint8_t val)
{
    enc_sram_put(s, *pos, val);
    *pos = enc_next_rx(s, *pos);
}

static void enc_rx_drop(ENCX24J600State *s, const char *why, bool abort)
{
    trace_encx24j600_rx_drop(why);
    /* test machinery { */
    s->stats.rx_dropped++;
    /* } test machinery */
    if (abort) {
        enc_set_eir(s, EIR_RXABTIF);
        enc_update(s);
    }
}

/* PAUSE frames go to this reserved group (IEEE 802.3 Annex 31B) */
static const uint8_t pause_group[ETH_ALEN] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01
};

/* A pause of `quanta` at the link speed */
static int64_t enc_pause_ns(ENCX24J600State *s, unsigned quanta)
{
    return (int64_t)quanta * PAUSE_QUANTUM_BYTES *
           (s->link_fast ? WIRE_BYTE_NS_100 : WIRE_BYTE_NS_10);
}

/* The pause is over (or ended by a pause of 0): a waiting frame goes */
static void enc_pause_end(void *opaque)
{
    ENCX24J600State *s = opaque;

    if (!s->tx_paused) {
        return;
    }
    s->tx_paused = false;
    if (!s->link_up) {
        s->tx_waiting = true;
        return;
    }
    enc_tx_wire(s);
}

/*
 * DS p86: in full duplex with MACON1.RXPAUS, a valid PAUSE frame, to the
 * reserved group or to MAADR, holds transmission for its pause time in
 * quanta of 512 bit times; a new one restarts the time, one of 0 ends it.
 * The MAC control sublayer sits below the address filters: the frame goes
 * on to them as any other (consumed unless PASSALL).
 */
static void enc_rx_pause(ENCX24J600State *s, const uint8_t *buf, size_t len,
                         bool invalid)
{
    uint8_t mac[ETH_ALEN];
    unsigned quanta;

    if (invalid || len < ETH_HLEN + 4 ||
        lduw_be_p(buf + 12) != ETH_P_MACCTRL ||
        lduw_be_p(buf + ETH_HLEN) != MACCTRL_PAUSE ||
        !(sfr16(s, MACON1) & MACON1_RXPAUS) ||
        !(sfr16(s, MACON2) & MACON2_FULDPX)) {
        return;
    }
    enc_get_mac(s, mac);
    if (memcmp(buf, pause_group, ETH_ALEN) && memcmp(buf, mac, ETH_ALEN)) {
        return;
    }
    quanta = lduw_be_p(buf + ETH_HLEN + 2);
    trace_encx24j600_pause_rx(quanta);
    if (!quanta) {
        timer_del(s->pause_timer);
        enc_pause_end(s);
        return;
    }
    timer_mod(s->pause_timer,
              qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + enc_pause_ns(s, quanta));
}

/*
 * A PAUSE frame to the link partner, sent at once: the model gives it no
 * wire time (it may overtake a frame on the wire).  Full duplex only: the
 * back-pressure a half-duplex MAC uses is not modelled.
 */
static void enc_fc_send(ENCX24J600State *s, uint16_t quanta)
{
    uint8_t f[ETH_MIN_NOFCS] = { 0 };

    if (!s->link_up || !(sfr16(s, MACON2) & MACON2_FULDPX)) {
        return;
    }
    memcpy(f, pause_group, ETH_ALEN);
    enc_get_mac(s, f + ETH_ALEN);
    stw_be_p(f + 12, ETH_P_MACCTRL);
    stw_be_p(f + ETH_HLEN, MACCTRL_PAUSE);
    stw_be_p(f + ETH_HLEN + 2, quanta);
    trace_encx24j600_pause_tx(quanta);
    qemu_send_packet(qemu_get_queue(s->nic), f, sizeof(f));
}

/* Flow control asserted: FCOP periodic, or AUTOFC above its watermark */
static bool enc_fc_asserted(ENCX24J600State *s)
{
    return (sfr16(s, ECON1) & ECON1_FCOP_MASK) == ECON1_FCOP_MULTIPLE ||
           s->autofc_on;
}

/*
 * While asserted, a PAUSE of EPAUS now and again each half of its time,
 * so the partner's pause never runs out (a model choice: chip-facts
 * gives no period)
 */
static void enc_fc_refresh(void *opaque)
{
    ENCX24J600State *s = opaque;
    int64_t half = enc_pause_ns(s, MAX(sfr16(s, EPAUS) / 2, 1));

    if (!enc_fc_asserted(s)) {
        return;
    }
    enc_fc_send(s, sfr16(s, EPAUS));
    timer_mod(s->fc_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + half);
}

/* Flow control asserted or released since `was`: start or stop it */
static void enc_fc_update(ENCX24J600State *s, bool was)
{
    bool now = enc_fc_asserted(s);

    if (now && !was) {
        enc_fc_refresh(s);
    } else if (!now && was) {
        timer_del(s->fc_timer);
    }
}

/* The bytes the receive ring holds, as the ring-full rule counts them */
static unsigned enc_rx_used(ENCX24J600State *s)
{
    unsigned start = enc_rx_start(s), ring, head, tail;

    if (start >= SRAM_END) {
        return 0;
    }
    ring = ENCX24J600_SRAM_SIZE - start;
    head = sfr16(s, ERXHEAD);
    tail = sfr16(s, ERXTAIL) & PTR_MASK;
    if (head < start || head > SRAM_END || tail < start || tail > SRAM_END) {
        return 0;
    }
    /* an empty ring has its tail 2 bytes behind the head */
    return (head + 2 * ring - tail - 2) % ring;
}

/*
 * AUTOFC: flow control is asserted when the ring holds more than the high
 * watermark (ERXWM high byte) and released, with a PAUSE of 0, when it
 * holds less than the low one (low byte), both in 96-byte units
 * (inferred: chip-facts 8.2, from the HRM's names and the SE's units)
 */
static void enc_autofc_check(ENCX24J600State *s)
{
    bool was = enc_fc_asserted(s);
    bool autofc = !!(sfr16(s, ECON2) & ECON2_AUTOFC);
    unsigned used;
    uint16_t wm = sfr16(s, ERXWM);

    /* (called for every frame stored: nothing to do with AUTOFC off) */
    if (!autofc && !s->autofc_on) {
        return;
    }
    used = enc_rx_used(s);
    if (autofc && !s->autofc_on && used > (wm >> 8) * ERXWM_UNIT) {
        s->autofc_on = true;
    } else if (s->autofc_on &&
               (!autofc || used < (wm & 0xff) * ERXWM_UNIT)) {
        s->autofc_on = false;
        enc_fc_send(s, 0);
    }
    enc_fc_update(s, was);
}

/*
 * The frame starts on the wire now: it occupies the wire for its wire
 * time, and the MAC filters and stores it.
 */
static void enc_rx_take(ENCX24J600State *s, const uint8_t *buf, size_t size)
{
    static const uint8_t zeros[ETH_MIN_NOFCS];
    size_t frame_len, wire_len, need;
    unsigned start, ring, head, tail, avail, next, next_field, pos;
    size_t data_len = size;
    bool crc_bad = false;
    uint16_t type;
    uint64_t rsv;
    uint32_t fcs;
    size_t i;

    /* test machinery { */
    /* enc_wire_ns() counts the FCS: with rx-fcs the frame has it */
    if (s->rx_pacing) {
        s->rx_wire_free = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
            enc_wire_ns(s, s->rx_fcs && size >= ETH_FCS_LEN ?
                           size - ETH_FCS_LEN : size);
    }
    /* } test machinery */

    if (!(sfr16(s, ECON1) & ECON1_RXEN) || (sfr16(s, ECON2) & ECON2_RXRST) ||
        !(sfr16(s, ECON2) & ECON2_ETHEN)) {
        enc_rx_drop(s, "reception disabled", false);
        return;
    }
    if (size < ETH_HLEN) {
        enc_rx_drop(s, "shorter than a header", false);
        return;
    }
    /* A real wire delivers at least 64 bytes including the FCS */
    frame_len = MAX(size, ETH_MIN_NOFCS);
    /* test machinery { */
    if (s->rx_fcs) {
        /* The backend's frame is the wire's: data, padding and FCS */
        if (size < ETH_HLEN + ETH_FCS_LEN) {
            enc_rx_drop(s, "shorter than a header", false);
            return;
        }
        data_len = size - ETH_FCS_LEN;
        frame_len = data_len;
        /* ldl_le_p() returns int, crc32() unsigned long: compare 32 bits */
        crc_bad = (uint32_t)ldl_le_p(buf + data_len) !=
                  (uint32_t)crc32(0, buf, data_len);
        if (crc_bad) {
            s->stats.rx_bad_fcs++;
        }
    }
    /* } test machinery */
    wire_len = frame_len + ETH_FCS_LEN;

    enc_rx_pause(s, buf, data_len,
                 crc_bad || wire_len < ETH_MIN_NOFCS + ETH_FCS_LEN);
    rsv = enc_rx_filter(s, buf, data_len, crc_bad,
                        wire_len < ETH_MIN_NOFCS + ETH_FCS_LEN);
    if (!rsv) {
        trace_encx24j600_rx_drop(crc_bad ? "bad CRC or filtered" : "filtered");
        /* test machinery { */
        s->stats.rx_filtered++;
        /* } test machinery */
        return;
    }

    type = lduw_be_p(buf + 12);
    if (type == ETH_P_MACCTRL && !(sfr16(s, MACON1) & MACON1_PASSALL)) {
        /* MAC control frames are consumed by the MAC */
        trace_encx24j600_rx_drop("MAC control frame");
        /* test machinery { */
        s->stats.rx_filtered++;
        /* } test machinery */
        return;
    }

    if (wire_len > sfr16(s, MAMXFL) && !(sfr16(s, MACON2) & MACON2_HFRMEN)) {
        enc_rx_drop(s, "longer than MAMXFL", false);
        return;
    }
    if (s->pktcnt == 0xff) {
        enc_rx_drop(s, "PKTCNT saturated", true);
        return;
    }

    start = enc_rx_start(s);
    if (start >= SRAM_END) {
        enc_rx_drop(s, "no receive ring", true);
        return;
    }
    ring = ENCX24J600_SRAM_SIZE - start;
    head = sfr16(s, ERXHEAD);
    if (head < start || head > SRAM_END || (head & 1)) {
        head = start;
    }
    tail = sfr16(s, ERXTAIL) & PTR_MASK;
    if (tail >= start && tail <= SRAM_END) {
        avail = (tail + ring - head) % ring;
    } else {
        /* The tail is outside the ring, the head can never reach it */
        avail = ring;
    }
    need = ROUND_UP(2 + RSV_SIZE + wire_len, 2);
    if (need >= avail) {
        enc_rx_drop(s, "receive ring full", true);
        return;
    }
    /* the receive area's wrap (enc_next_rx), in one step */
    next = start + (head - start + need) % ring;

    /* Receive status vector */
    rsv |= wire_len & 0xffff;
    if (is_broadcast_ether_addr(buf)) {
        rsv |= 1ULL << 25;
    } else if (is_multicast_ether_addr(buf)) {
        rsv |= 1ULL << 24;
    }
    if (type > 1500) {
        rsv |= 1ULL << 22;
    }
    if (type == ETH_P_VLAN) {
        rsv |= 1ULL << 30;
    }
    if (type == ETH_P_MACCTRL) {
        rsv |= 1ULL << 27;
        if (data_len >= ETH_HLEN + 2 && lduw_be_p(buf + ETH_HLEN) == 0x0001) {
            rsv |= 1ULL << 28;
        } else {
            rsv |= 1ULL << 29;
        }
    }

    next_field = next;
    /* test machinery { */
    /* Injected faults corrupt what is written, not ERXHEAD */
    if (enc_fault_take(s, ENCX24J600_FAULT_RX_BAD_RSV)) {
        rsv |= 0xffff;
    }
    if (enc_fault_take(s, ENCX24J600_FAULT_RX_NEXT_ODD)) {
        next_field = next + 1;
    }
    if (enc_fault_take(s, ENCX24J600_FAULT_RX_NEXT_OUTSIDE)) {
        next_field = start >= 2 ? start - 2 : ENCX24J600_SRAM_SIZE;
    }
    /* Only where the claim still ends past ERXHEAD: else it stays armed */
    if (need + PAST_HEAD_BYTES < ring &&
        enc_fault_take(s, ENCX24J600_FAULT_RX_PAST_HEAD)) {
        /*
         * A header that agrees with itself (byte count and next pointer)
         * for a frame longer than the one stored: it ends past ERXHEAD
         */
        rsv = (rsv & ~0xffffULL) | ((wire_len + PAST_HEAD_BYTES) & 0xffff);
        next_field = start + (head - start + need + PAST_HEAD_BYTES) % ring;
    }
    /* } test machinery */

    pos = head;
    enc_ring_put(s, &pos, next_field & 0xff);
    enc_ring_put(s, &pos, next_field >> 8);
    for (i = 0; i < RSV_SIZE; i++) {
        enc_ring_put(s, &pos, rsv >> (8 * i));
    }
    for (i = 0; i < data_len; i++) {
        enc_ring_put(s, &pos, buf[i]);
    }
    for (; i < frame_len; i++) {
        enc_ring_put(s, &pos, 0);
    }
    fcs = crc32(0, buf, data_len);
    if (frame_len > data_len) {
        fcs = crc32(fcs, zeros, frame_len - data_len);
    }
    /* test machinery { */
    if (s->rx_fcs) {
        fcs = ldl_le_p(buf + data_len);
    }
    /* } test machinery */
    for (i = 0; i < ETH_FCS_LEN; i++) {
        enc_ring_put(s, &pos, fcs >> (8 * i));
    }

    sfr16_set(s, ERXHEAD, next);
    s->pktcnt++;
    if (s->pktcnt == 0xff) {
        enc_set_eir(s, EIR_PCFULIF);
    }
    /* test machinery { */
    s->stats.rx_frames++;
    /* } test machinery */
    trace_encx24j600_rx(size, head, next, s->pktcnt);
    enc_autofc_check(s);
    enc_update(s);
}

static ssize_t enc_receive(NetClientState *nc, const uint8_t *buf, size_t size)
{
    ENCX24J600State *s = qemu_get_nic_opaque(nc);
    /*
     * Report an empty frame as consumed: a return value of 0 would make
     * the net layer queue it and stop delivering to us for good.
     */
    ssize_t consumed = size ? size : 1;

    if (!s->link_up) {
        /* The PHY is still negotiating: no partner sends now */
        trace_encx24j600_rx_drop("no link");
        return consumed;
    }
    /* test machinery { */
    /* Frames arrive at most at the link speed */
    if (s->rx_pacing && enc_wire_buf_put(s, buf, size)) {
        return consumed;
    }
    /* } test machinery */
    enc_rx_take(s, buf, size);
    return consumed;
}

static void enc_pktdec(ENCX24J600State *s)
{
    if (s->pktcnt) {
        s->pktcnt--;
    }
    enc_update(s);
}

/* Transmit path */

/*
 * The frame of a transmission as it goes on the wire: read from the SRAM
 * (wrapping as the buffer it starts in does), padded and
 * given its FCS per MACON2, the source address replaced under TXMAC.
 * Returns the bytes for the backend (without FCS) in *send_len and the
 * bytes on the wire with FCS in *wire_len.
 */
static uint8_t *enc_tx_frame(ENCX24J600State *s, unsigned st, unsigned len,
                             unsigned *send_len, unsigned *wire_len,
                             uint16_t *txstat)
{
    uint16_t macon2 = sfr16(s, MACON2);
    unsigned padcfg = (macon2 >> 5) & 7;
    bool add_crc = !!(macon2 & MACON2_TXCRCEN);
    unsigned pad_to = 0, i, p = st;
    ENCArea area = enc_area_of(s, st);
    uint8_t *buf = g_malloc0(MAX(len, 64) + ETH_FCS_LEN);

    /* DS 9.1: within the buffer the frame starts in, wrapping as it does */
    for (i = 0; i < len; i++) {
        buf[i] = enc_sram_get(s, p);
        p = enc_next_in(s, area, p);
    }
    if (padcfg & 1) {
        add_crc = true;
        if (padcfg == 1) {
            pad_to = ETH_MIN_NOFCS;
        } else if (padcfg == 5) {
            pad_to = ETH_MIN_NOFCS;
            if (len >= ETH_HLEN && lduw_be_p(buf + 12) == ETH_P_VLAN) {
                pad_to = 64;
            }
        } else {
            pad_to = 64;
        }
    }
    *send_len = MAX(len, pad_to);
    if ((sfr16(s, ECON2) & ECON2_TXMAC) && *send_len >= 2 * ETH_ALEN) {
        enc_get_mac(s, buf + ETH_ALEN);
    }
    *txstat = 0;
    if (add_crc) {
        *wire_len = *send_len + ETH_FCS_LEN;
    } else {
        /* The host supplied the FCS: check it and keep it off the backend */
        *wire_len = *send_len;
        /* ldl_le_p() returns int: compare as 32-bit unsigned values */
        if (*send_len < ETH_FCS_LEN ||
            (uint32_t)crc32(0, buf, *send_len - ETH_FCS_LEN) !=
            (uint32_t)ldl_le_p(buf + *send_len - ETH_FCS_LEN)) {
            *txstat |= ETXSTAT_CRCBAD;
        }
        *send_len = *send_len >= ETH_FCS_LEN ? *send_len - ETH_FCS_LEN : 0;
    }
    return buf;
}

/* The frame of ETXST/ETXLEN as latched goes on the wire now */
static void enc_tx_wire(ENCX24J600State *s)
{
    unsigned wire_len, send_len;
    uint16_t txstat;
    g_autofree uint8_t *buf = enc_tx_frame(s, s->tx_st, s->tx_len, &send_len,
                                           &wire_len, &txstat);
    /* (a frame without FCS shorter than one is padded to 60 bytes anyway) */
    int64_t ns = enc_wire_ns(s, wire_len > ETH_FCS_LEN ?
                                wire_len - ETH_FCS_LEN : 0);
    bool mac_full = sfr16(s, MACON2) & MACON2_FULDPX;
    uint8_t mismatch = 1 | (mac_full << 1) | (s->link_full << 2);

    /*
     * A MAC in the other duplex than the link sees collisions that are not
     * there (half) or collides unawares (full) on silicon: late collisions
     * and frames lost.  The model sends the frame and reports the mismatch.
     */
    if (mac_full != s->link_full && mismatch != s->duplex_logged) {
        qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: transmission with "
                      "MACON2.FULDPX %d on a %s-duplex link\n", mac_full,
                      s->link_full ? "full" : "half");
        s->duplex_logged = mismatch;
    } else if (mac_full == s->link_full) {
        /* Both half duplex: what collisions would do is not modelled */
        if (!mac_full && s->duplex_logged != DUPLEX_LOGGED_HALF) {
            qemu_log_mask(LOG_UNIMP, "encx24j600: half-duplex collisions, "
                          "deferral and backoff not implemented: frames go "
                          "as on a full-duplex link\n");
        }
        s->duplex_logged = mac_full ? 0 : DUPLEX_LOGGED_HALF;
    }
    trace_encx24j600_tx_start(s->tx_st, s->tx_len, wire_len, ns);
    timer_mod(s->tx_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + ns);
}

/*
 * Transmission request (TXRTS 0->1).  A frame that cannot go (length 0,
 * longer than MAMXFL without HFRMEN) is aborted at once.  Else it occupies
 * the wire for its wire time at the link speed, and TXRTS stays set
 * meanwhile; enc_tx_done() ends it.  Without a link the frame waits, TXRTS
 * set and no flag raised, until the link comes up.  The frame's bytes are
 * taken from the SRAM when it leaves the wire: a host that rewrites the
 * buffer before TXIF sends what it wrote.
 */
static void enc_tx(ENCX24J600State *s)
{
    unsigned st = sfr16(s, ETXST) & PTR_MASK;
    unsigned len = sfr16(s, ETXLEN) & PTR_MASK;
    unsigned wire_len, send_len;
    uint16_t txstat;
    g_autofree uint8_t *buf = NULL;

    if (sfr16(s, ECON2) & ECON2_TXRST) {
        sfr16_set(s, ECON1, sfr16(s, ECON1) & ~ECON1_TXRTS);
        return;
    }
    /* With the MAC off the request waits, TXRTS set, for ETHEN */
    if (!(sfr16(s, ECON2) & ECON2_ETHEN)) {
        return;
    }
    /* test machinery { */
    /*
     * Injected faults: the link drops under the frame, or the frame is
     * aborted after the maximum number of collisions.  Nothing is sent.
     */
    if (enc_fault_take(s, ENCX24J600_FAULT_TX_LINK_LOSS)) {
        trace_encx24j600_tx_abort(st, len, false);
        sfr16_set(s, ETXSTAT, 0);
        sfr16_set(s, ETXWIRE, 0);
        enc_set_eir(s, EIR_TXABTIF);
        sfr16_set(s, ECON1, sfr16(s, ECON1) & ~ECON1_TXRTS);
        enc_phy_restart(s);
        return;
    }
    if (enc_fault_take(s, ENCX24J600_FAULT_TX_ABORT)) {
        trace_encx24j600_tx_abort(st, len, s->link_up);
        sfr16_set(s, ETXSTAT, ETXSTAT_MAXCOL | (sfr16(s, MACLCON) & 0xf));
        sfr16_set(s, ETXWIRE, 0);
        enc_set_eir(s, EIR_TXABTIF);
        sfr16_set(s, ECON1, sfr16(s, ECON1) & ~ECON1_TXRTS);
        return;
    }
    /* } test machinery */

    buf = enc_tx_frame(s, st, len, &send_len, &wire_len, &txstat);
    if (!len ||
        (wire_len > sfr16(s, MAMXFL) && !(sfr16(s, MACON2) & MACON2_HFRMEN))) {
        qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: transmission of %u bytes "
                      "(%u on the wire) with MAMXFL %u: aborted\n", len,
                      wire_len, sfr16(s, MAMXFL));
        trace_encx24j600_tx_abort(st, len, s->link_up);
        sfr16_set(s, ETXSTAT, txstat);
        sfr16_set(s, ETXWIRE, 0);
        enc_set_eir(s, EIR_TXABTIF);
        sfr16_set(s, ECON1, sfr16(s, ECON1) & ~ECON1_TXRTS);
        return;
    }
    s->tx_st = st;
    s->tx_len = len;
    if (timer_pending(s->pause_timer)) {
        /* DS p86: the frame waits, TXRTS set, for the pause to end */
        trace_encx24j600_tx_paused(st, len);
        s->tx_paused = true;
        return;
    }
    if (!s->link_up) {
        /* No link: the frame waits for one, TXRTS set (see the docs) */
        trace_encx24j600_tx_wait_link(st, len);
        s->tx_waiting = true;
        return;
    }
    enc_tx_wire(s);
}

/* The frame has left the wire */
static void enc_tx_done(void *opaque)
{
    ENCX24J600State *s = opaque;
    unsigned wire_len, send_len;
    uint16_t txstat;
    g_autofree uint8_t *buf = NULL;

    buf = enc_tx_frame(s, s->tx_st, s->tx_len, &send_len, &wire_len,
                       &txstat);
    trace_encx24j600_tx(s->tx_st, s->tx_len, wire_len);
    /* A frame with a bad FCS goes on the wire, the peer drops it */
    if (!(txstat & ETXSTAT_CRCBAD) && send_len) {
        qemu_send_packet(qemu_get_queue(s->nic), buf, send_len);
    }
    /* test machinery { */
    s->stats.tx_frames++;
    /* } test machinery */
    sfr16_set(s, ETXSTAT, txstat);
    sfr16_set(s, ETXWIRE, wire_len);
    enc_set_eir(s, EIR_TXIF);
    sfr16_set(s, ECON1, sfr16(s, ECON1) & ~ECON1_TXRTS);
    enc_update(s);
}

/*
 * The frame's wire time is over but the timer has not run yet (timers run
 * in the main loop, some time after their deadline): end it now, so that
 * the host never sees TXRTS set after the frame has left the wire.
 */
static void enc_tx_settle(ENCX24J600State *s)
{
    if (timer_pending(s->tx_timer) &&
        qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) >=
        timer_expire_time_ns(s->tx_timer)) {
        timer_del(s->tx_timer);
        enc_tx_done(s);
    }
}

/*
 * A transmission on the wire, or waiting for the link, ends before its
 * time: nothing reaches the backend, TXRTS clears and, if flag, TXABTIF
 * reports the abort.
 */
static void enc_tx_abort(ENCX24J600State *s, bool flag)
{
    if (!timer_pending(s->tx_timer) && !s->tx_waiting && !s->tx_paused) {
        return;
    }
    timer_del(s->tx_timer);
    s->tx_waiting = false;
    s->tx_paused = false;
    trace_encx24j600_tx_abort(s->tx_st, s->tx_len, s->link_up);
    sfr16_set(s, ECON1, sfr16(s, ECON1) & ~ECON1_TXRTS);
    if (flag) {
        sfr16_set(s, ETXSTAT, 0);
        sfr16_set(s, ETXWIRE, 0);
        enc_set_eir(s, EIR_TXABTIF);
    }
}

/* DMA engine, instantaneous */

static void enc_dma(ENCX24J600State *s)
{
    uint16_t econ1 = sfr16(s, ECON1);
    unsigned src = sfr16(s, EDMAST) & PTR_MASK;
    unsigned dst = sfr16(s, EDMADST) & PTR_MASK;
    unsigned len = sfr16(s, EDMALEN) & PTR_MASK;
    bool copy = !!(econ1 & ECON1_DMACPY);
    bool csum = !(copy && (econ1 & ECON1_DMANOCS));
    ENCArea src_area = enc_area_of(s, src), dst_area = enc_area_of(s, dst);
    uint32_t sum = 0;
    unsigned i;

    trace_encx24j600_dma(src, dst, len, copy, csum);
    if (econ1 & ECON1_DMACSSD) {
        /* The seed is a previous result: undo its final complement */
        sum = (uint16_t)~lduw_be_p(&s->sfr[EDMACS]);
    }
    for (i = 0; i < len; i++) {
        uint8_t b = enc_sram_get(s, src);

        if (copy) {
            enc_sram_put(s, dst, b);
            dst = enc_next_in(s, dst_area, dst);
        }
        sum += (i & 1) ? b : (b << 8);
        sum = (sum & 0xffff) + (sum >> 16);
        src = enc_next_in(s, src_area, src);
    }
    if (csum) {
        /* EDMACSL holds the byte that comes first in the packet */
        stw_be_p(&s->sfr[EDMACS], ~sum & 0xffff);
    }
    sfr16_set(s, ECON1, sfr16(s, ECON1) & ~ECON1_DMAST);
    enc_set_eir(s, EIR_DMAIF);
}

/* Reset */

/*
 * The reset is over: from now the chip does not answer for RESET_SPI_NS,
 * the PHY is not ready for RESET_PHY_NS, then negotiates the link, which
 * comes up with LINKIF.
 */
static void enc_reset_release(ENCX24J600State *s)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    s->spi_ready_at = now + RESET_SPI_NS;
    s->phy_ready_at = now + RESET_PHY_NS;
    enc_autoneg_start(s);
}

static void enc_soft_reset(ENCX24J600State *s, bool power_on)
{
    uint16_t cocon = power_on ? (0xb << 8) : (sfr16(s, ECON2) & ECON2_COCON);

    trace_encx24j600_reset(power_on);
    timer_del(s->tx_timer);
    s->tx_waiting = false;
    timer_del(s->pause_timer);
    s->tx_paused = false;
    timer_del(s->fc_timer);
    s->autofc_on = false;
    memset(s->sfr, 0, sizeof(s->sfr));
    /* test machinery { */
    s->eir_unread = 0;
    /* } test machinery */
    sfr16_set(s, ERXST, 0x5340);
    sfr16_set(s, ERXTAIL, 0x5ffe);
    sfr16_set(s, ERXHEAD, 0x5340);
    s->erxheadh = s->sfr[ERXHEAD + 1];
    sfr16_set(s, ERXFCON, 0x0059);
    sfr16_set(s, MACON1, 0x0009);
    sfr16_set(s, MACON2, 0x40b2);
    sfr16_set(s, MABBIPG, 0x0012);
    sfr16_set(s, MAIPG, 0x0c12);
    sfr16_set(s, MACLCON, 0x370f);
    sfr16_set(s, MAMXFL, 0x05ee);
    sfr16_set(s, MIREGADR, 0x0100);
    sfr16_set(s, EPAUS, 0x1000);
    sfr16_set(s, ECON2, ECON2_ETHEN | ECON2_STRCH | cocon);
    sfr16_set(s, EIE, 0x8010);
    sfr16_set(s, EIDLED, EIDLED_RESET);
    enc_set_mac(s, s->conf.macaddr.a);
    /* test machinery { */
    if (s->factory_mac_blank) {
        static const uint8_t blank[ETH_ALEN];

        enc_set_mac(s, blank);
    }
    /* } test machinery */
    s->pktcnt = 0;
    s->bank = 0;
    s->mac_lo_valid = false;
    s->mii_busy_until = 0;
    s->mii_op = MII_OP_NONE;
    timer_del(s->mii_timer);
    enc_phy_reset(s);
    /*
     * The PHY resets with the chip: the link is down (the reset state: no
     * LINKIF).  (A model choice: silicon may keep a link whose mode the
     * reset leaves alone; this is the harder reading.)
     */
    if (s->link_up) {
        trace_encx24j600_link(false);
        s->link_up = false;
        /* test machinery { */
        enc_wire_buf_drop(s, true);
        /* } test machinery */
    }
    /* polling for the chip after power-on is the datasheet's procedure */
    s->reset_by_guest = !power_on;
    if (power_on) {
        /* Silent until released (enc_reset_exit) */
        s->spi_ready_at = INT64_MAX;
        s->phy_ready_at = INT64_MAX;
        timer_del(s->autoneg_timer);
    } else {
        enc_reset_release(s);
    }
    enc_update(s);
    /*
     * The chip is not accessible during a reset: a CS cycle that SETETHRST
     * or ETHRST is part of ends here, and what follows in it reads as the
     * undriven bus.  (At power-on the SSI core's level is not a cycle
     * under way.)
     */
    if (!power_on && !SSI_PERIPHERAL(s)->cs) {
        s->spi_state = SPI_RESETTING;
        /* test machinery { */
        s->cls = ENCX24J600_CLASS_UNKNOWN;
        /* } test machinery */
    }
}

/* SFR access */

/*
 * An MII operation takes effect when BUSY clears: a read loads MIRD then,
 * a write reaches the PHY then.  Called when the time may have come: by
 * the timer, and before the host reads or starts anything, so that BUSY
 * reading 0 always means the operation is done.
 */
static void enc_mii_settle(ENCX24J600State *s)
{
    uint8_t op = s->mii_op;

    if (op == MII_OP_NONE ||
        qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) < s->mii_busy_until) {
        return;
    }
    s->mii_op = MII_OP_NONE;
    if (op == MII_OP_READ_UNANSWERED) {
        sfr16_set(s, MIRD, 0);
    } else if (op == MII_OP_READ) {
        sfr16_set(s, MIRD, enc_phy_read(s, s->mii_reg));
    } else {
        enc_phy_write(s, s->mii_reg, s->mii_val);
        /* ESTAT.PHYDPX follows the new PHY mode */
        enc_update(s);
    }
}

static void enc_mii_done(void *opaque)
{
    enc_mii_settle(opaque);
}

static bool enc_mii_busy(ENCX24J600State *s)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) < s->mii_busy_until;
}

/* MII read or write of the PHY register MIREGADR: BUSY for 25.6 us */
static void enc_mii_start(ENCX24J600State *s, uint8_t op, uint16_t val)
{
    enc_mii_settle(s);
    if (enc_mii_busy(s)) {
        /* Which of the two wins on silicon is not documented: neither */
        qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: MII %s of PHY register "
                      "0x%02x while MISTAT.BUSY: ignored\n",
                      op == MII_OP_READ ? "read" : "write",
                      sfr16(s, MIREGADR) & 0x1f);
        return;
    }
    s->mii_op = op;
    s->mii_reg = sfr16(s, MIREGADR) & 0x1f;
    s->mii_val = val;
    if (qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) < s->phy_ready_at) {
        /* The operation runs its time; the PHY answers nothing */
        qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: MII %s of PHY register "
                      "0x%02x before the PHY is ready after a reset: the "
                      "PHY does not answer\n",
                      op == MII_OP_READ ? "read" : "write", s->mii_reg);
        s->mii_op = op == MII_OP_READ ? MII_OP_READ_UNANSWERED : MII_OP_NONE;
    }
    s->mii_busy_until = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + MII_BUSY_NS;
    timer_mod(s->mii_timer, s->mii_busy_until);
}

static uint8_t enc_sfr_read(ENCX24J600State *s, unsigned a)
{
    a = enc_canon(a);
    if (enc_is_unimplemented(a)) {
        return 0;
    }
    if ((a & ~1) == MIRD && (sfr16(s, MICMD) & MICMD_MIISCAN)) {
        sfr16_set(s, MIRD, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) <
                           s->phy_ready_at ? 0 :
                           enc_phy_read(s, sfr16(s, MIREGADR) & 0x1f));
    }
    if ((a & ~1) == ESTAT) {
        /* ESTAT.PHYRDY comes with the time */
        sfr16_set(s, ESTAT, enc_estat(s));
    }
    if (a == MISTAT) {
        return s->sfr[a] | (enc_mii_busy(s) ? MISTAT_BUSY : 0);
    }
    /* test machinery { */
    if ((a & ~1) == EIR) {
        /* the host has seen the flags of this byte */
        s->eir_unread &= (a & 1) ? 0x00ff : 0xff00;
    }
    /* } test machinery */
    /*
     * ERXHEAD is read low byte first: reading ERXHEADL latches ERXHEADH,
     * so a frame stored between the two reads cannot tear the pair.
     */
    if (a == ERXHEAD) {
        s->erxheadh = s->sfr[ERXHEAD + 1];
    } else if (a == ERXHEAD + 1) {
        return s->erxheadh;
    }
    return s->sfr[a];
}

/* Software moves the head (RXRST, ERXST): the latch follows */
static void enc_rx_head_reset(ENCX24J600State *s)
{
    sfr16_set(s, ERXHEAD, enc_rx_start(s));
    s->erxheadh = s->sfr[ERXHEAD + 1];
}

static void enc_econ1_write(ENCX24J600State *s, uint16_t val)
{
    uint16_t old = sfr16(s, ECON1);
    bool fc_was = enc_fc_asserted(s);
    uint16_t fcop;

    if (val & (ECON1_MODEXST | ECON1_AESST)) {
        qemu_log_mask(LOG_UNIMP, "encx24j600: crypto engines\n");
        val &= ~(ECON1_MODEXST | ECON1_AESST);
    }
    /* One PAUSE, of EPAUS or 0, and FCOP is back to 00 */
    fcop = val & ECON1_FCOP_MASK;
    if (fcop == ECON1_FCOP_SINGLE || fcop == ECON1_FCOP_CLEAR) {
        val &= ~ECON1_FCOP_MASK;
    }
    sfr16_set(s, ECON1, val & ~ECON1_PKTDEC);
    if (fcop == ECON1_FCOP_SINGLE) {
        enc_fc_send(s, sfr16(s, EPAUS));
    } else if (fcop == ECON1_FCOP_CLEAR) {
        enc_fc_send(s, 0);
    }
    enc_fc_update(s, fc_was);
    if (val & ECON1_PKTDEC) {
        enc_pktdec(s);
    }
    /* With the MAC off the DMA waits, DMAST set, for ETHEN */
    if (!(old & ECON1_DMAST) && (val & ECON1_DMAST) &&
        (sfr16(s, ECON2) & ECON2_ETHEN)) {
        enc_dma(s);
    }
    if (!(old & ECON1_TXRTS) && (val & ECON1_TXRTS)) {
        enc_tx(s);
    } else if ((old & ECON1_TXRTS) && !(val & ECON1_TXRTS)) {
        /* The host cancels the transmission: no flag reports it */
        enc_tx_abort(s, false);
    }
    enc_update(s);
}

static void enc_econ2_write(ENCX24J600State *s, uint16_t val)
{
    uint16_t old = sfr16(s, ECON2);

    if (val & ECON2_ETHRST) {
        enc_soft_reset(s, false);
        return;
    }
    sfr16_set(s, ECON2, val);
    if (!(old & ECON2_RXRST) && (val & ECON2_RXRST)) {
        /*
         * Receive logic reset: the head returns to the ring start.  PKTCNT
         * is left alone (whether RXRST clears it is not documented; the
         * driver must count it down with SETPKTDEC either way).
         */
        enc_rx_head_reset(s);
    }
    if (val & ECON2_TXRST) {
        enc_tx_abort(s, false);
        sfr16_set(s, ECON1, sfr16(s, ECON1) & ~ECON1_TXRTS);
    }
    if ((old & ECON2_ETHEN) && !(val & ECON2_ETHEN)) {
        /*
         * The MAC and the DMA stop (registers and SRAM kept): a frame on
         * the wire is cut off, one waiting for the link waits for ETHEN
         * now (drivers wait for TXRTS to clear first)
         */
        if (timer_pending(s->tx_timer)) {
            qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: ECON2.ETHEN cleared "
                          "during a transmission: the frame is cut off\n");
            enc_tx_abort(s, false);
        }
        s->tx_waiting = false;
        s->tx_paused = false;
    } else if (!(old & ECON2_ETHEN) && (val & ECON2_ETHEN)) {
        /* What waited for the MAC runs now */
        if (sfr16(s, ECON1) & ECON1_DMAST) {
            enc_dma(s);
        }
        if ((sfr16(s, ECON1) & ECON1_TXRTS) && !timer_pending(s->tx_timer) &&
            !s->tx_waiting && !s->tx_paused) {
            enc_tx(s);
        }
    }
    enc_autofc_check(s);
    enc_update(s);
}

/* MAC and MII registers take effect as a 16-bit pair */
static void enc_mac_commit(ENCX24J600State *s, unsigned reg, uint16_t val)
{
    uint16_t old = sfr16(s, reg);

    switch (reg) {
    case MIRD:
    case MISTAT:
        qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: write of 0x%04x to the "
                      "read-only MII register 0x%02x ignored\n", val, reg);
        return;
    case MICMD:
        val &= MICMD_MIISCAN | MICMD_MIIRD;
        if ((val & MICMD_MIIRD) && !(old & MICMD_MIIRD)) {
            /* test machinery { */
            s->stats.mii_reads++;
            /* } test machinery */
            enc_mii_start(s, MII_OP_READ, 0);
        }
        sfr16_set(s, MISTAT, (val & MICMD_MIISCAN) ? MISTAT_SCAN : 0);
        break;
    case MIWR:
        /* test machinery { */
        s->stats.mii_writes++;
        /* } test machinery */
        sfr16_set(s, reg, val);
        enc_mii_start(s, MII_OP_WRITE, val);
        return;
    case MACON1:
        if ((val & MACON1_LOOPBK) && !(old & MACON1_LOOPBK)) {
            qemu_log_mask(LOG_UNIMP, "encx24j600: MAC loopback "
                          "(MACON1.LOOPBK) not implemented: frames go to "
                          "the link\n");
        }
        break;
    default:
        break;
    }
    sfr16_set(s, reg, val);
}

/* A MAC/MII low byte that no high byte follows is never committed */
static void enc_mac_lo_check(ENCX24J600State *s)
{
    if (s->mac_lo_valid) {
        qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: low byte of MAC/MII "
                      "register 0x%02x written alone: not committed\n",
                      s->mac_lo_addr);
        s->mac_lo_valid = false;
    }
}

static void enc_sfr_write(ENCX24J600State *s, unsigned a, uint8_t v, int op)
{
    unsigned reg;
    uint16_t cur, val;
    uint8_t old;

    a = enc_canon(a);
    if (enc_is_unimplemented(a)) {
        return;
    }
    old = s->sfr[a];
    if (op == OP_SET) {
        v |= old;
    } else if (op == OP_CLR) {
        v = old & ~v;
    }

    trace_encx24j600_sfr_write(a, v);
    if (enc_is_mac_reg(a)) {
        if (!(a & 1)) {
            enc_mac_lo_check(s);
            s->mac_lo = v;
            s->mac_lo_addr = a;
            s->mac_lo_valid = true;
            return;
        }
        /* A lone high byte write keeps the current low byte */
        if (s->mac_lo_valid && s->mac_lo_addr == a - 1) {
            cur = s->mac_lo;
        } else {
            enc_mac_lo_check(s);
            qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: high byte of MAC/MII "
                          "register 0x%02x written alone: committed with its "
                          "current low byte\n", a - 1);
            cur = s->sfr[a - 1];
        }
        s->mac_lo_valid = false;
        enc_mac_commit(s, a - 1, cur | (v << 8));
        return;
    }

    reg = a & ~1;
    cur = sfr16(s, reg);
    val = (a & 1) ? ((cur & 0x00ff) | (v << 8)) : ((cur & 0xff00) | v);

    switch (reg) {
    case ERXHEAD:
    case ETXSTAT:
    case ETXWIRE:
    case ESTAT:
        qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: write of 0x%02x to the "
                      "read-only SFR 0x%02x ignored\n", v, a);
        return;
    case ERXST:
        if ((sfr16(s, ECON1) & ECON1_RXEN) && ((a & 1) || op != OP_WRITE)) {
            qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: ERXST changed while "
                          "ECON1.RXEN is set\n");
        }
        sfr16_set(s, reg, val & PTR_MASK);
        enc_rx_head_reset(s);
        return;
    case ERXTAIL:
        sfr16_set(s, reg, val & PTR_MASK);
        enc_autofc_check(s);
        /* The low byte alone may be half of a 16-bit write */
        if (((a & 1) || op != OP_WRITE) &&
            ((val & 1) || (val & PTR_MASK) < enc_rx_start(s) ||
             (val & PTR_MASK) > SRAM_END)) {
            qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: ERXTAIL 0x%04x odd or "
                          "outside the receive ring 0x%04x-0x%04x\n", val,
                          enc_rx_start(s), SRAM_END);
        }
        return;
    case ETXLEN:
    case EDMALEN:
        sfr16_set(s, reg, val & PTR_MASK);
        return;
    case ETXST:
    case EDMAST:
    case EDMADST:
    case EUDAST:
    case EUDAND:
    case EGPRDPT:
    case EGPWRPT:
    case ERXRDPT:
    case ERXWRPT:
    case EUDARDPT:
    case EUDAWRPT:
        sfr16_set(s, reg, val & PTR_MASK);
        if (((a & 1) || op != OP_WRITE) &&
            (val & PTR_MASK) >= ENCX24J600_SRAM_SIZE) {
            qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: SRAM pointer SFR "
                          "0x%02x set to 0x%04x, beyond the SRAM (0x%04x)\n",
                          reg, val, ENCX24J600_SRAM_SIZE);
        }
        return;
    case EIR:
        /* test machinery { */
        enc_eir_cleared(s, cur & ~val & EIR_WRITABLE);
        /* } test machinery */
        sfr16_set(s, reg, val & EIR_WRITABLE);
        enc_update(s);
        return;
    case EIE:
        sfr16_set(s, reg, val);
        enc_update(s);
        return;
    case ECON1:
        enc_econ1_write(s, val);
        return;
    case ECON2:
        enc_econ2_write(s, val);
        return;
    case EIDLED:
        if (a & 1) {
            s->sfr[a] = v;
        }
        return;
    case ERXFCON:
        /* Stored, and never matches: the pattern is not modelled */
        if ((val & ERXFCON_PMEN) && !(cur & ERXFCON_PMEN)) {
            qemu_log_mask(LOG_UNIMP, "encx24j600: pattern match filter "
                          "(ERXFCON.PMEN) not implemented: it never "
                          "matches\n");
        }
        sfr16_set(s, reg, val);
        return;
    default:
        s->sfr[a] = v;
        return;
    }
}

/* SPI instruction set */

static void enc_start_command(ENCX24J600State *s, uint8_t op, int cls)
{
    s->opcode = op;
    /* test machinery { */
    s->cls = cls;
    /*
     * The opcode byte counts under its own class here, before the command
     * runs: SETETHRST's reset moves the cycle's class on to "unknown"
     */
    s->stats.cls[cls].bytes++;
    s->stats.cls[cls].commands++;
    if (s->first_op) {
        s->first_op = false;
        s->stats.cls[cls].transactions++;
    }
    /* } test machinery */
    trace_encx24j600_cmd(op, enc_class_name[cls]);
}

static void enc_set_econ1_bits(ENCX24J600State *s, uint16_t clr, uint16_t set)
{
    enc_econ1_write(s, (sfr16(s, ECON1) & ~clr) | set);
}

static void enc_opcode(ENCX24J600State *s, uint8_t op)
{
    const uint16_t dma_mode = ECON1_DMACPY | ECON1_DMACSSD | ECON1_DMANOCS;

    switch (op) {
    case 0x00 ... 0x1f:
        enc_start_command(s, op, ENCX24J600_CLASS_RCR);
        s->addr = op & 0x1f;
        s->spi_state = SPI_SFR;
        return;
    case 0x40 ... 0x5f:
        enc_start_command(s, op, ENCX24J600_CLASS_WCR);
        s->addr = op & 0x1f;
        s->spi_state = SPI_SFR;
        return;
    case 0x80 ... 0x9f:
        enc_start_command(s, op, ENCX24J600_CLASS_BFS);
        s->addr = op & 0x1f;
        s->spi_state = SPI_SFR;
        return;
    case 0xa0 ... 0xbf:
        enc_start_command(s, op, ENCX24J600_CLASS_BFC);
        s->addr = op & 0x1f;
        s->spi_state = SPI_SFR;
        return;
    case 0x20:
    case 0x22:
    case 0x24:
    case 0x26:
        enc_start_command(s, op, ENCX24J600_CLASS_RCRU + ((op - 0x20) >> 1));
        s->spi_state = SPI_UADDR;
        return;
    case 0x28:
    case 0x2c:
    case 0x30:
        enc_start_command(s, op, ENCX24J600_CLASS_SRAM_READ);
        s->spi_state = SPI_SRAM;
        return;
    case 0x2a:
    case 0x2e:
    case 0x32:
        enc_start_command(s, op, ENCX24J600_CLASS_SRAM_WRITE);
        s->spi_state = SPI_SRAM;
        return;
    case 0x60 ... 0x77:
        if (op & 1) {
            break;
        }
        enc_start_command(s, op, (op & 2) ? ENCX24J600_CLASS_POINTER_READ :
                                            ENCX24J600_CLASS_POINTER_WRITE);
        s->spi_state = SPI_PTR_LO;
        return;
    case 0xc0:
    case 0xc2:
    case 0xc4:
    case 0xc6:
        enc_start_command(s, op, ENCX24J600_CLASS_BANK_SELECT);
        s->bank = (op >> 1) & 3;
        return;
    case 0xc8:
        enc_start_command(s, op, ENCX24J600_CLASS_RBSEL);
        s->spi_state = SPI_RBSEL;
        return;
    case 0xca: /* SETETHRST */
        enc_start_command(s, op, ENCX24J600_CLASS_COMMAND);
        enc_soft_reset(s, false);
        return;
    case 0xcc: /* SETPKTDEC */
        enc_start_command(s, op, ENCX24J600_CLASS_COMMAND);
        enc_pktdec(s);
        return;
    case 0xd2: /* DMASTOP */
        enc_start_command(s, op, ENCX24J600_CLASS_COMMAND);
        enc_set_econ1_bits(s, ECON1_DMAST, 0);
        return;
    case 0xd4: /* SETTXRTS */
        enc_start_command(s, op, ENCX24J600_CLASS_COMMAND);
        enc_set_econ1_bits(s, 0, ECON1_TXRTS);
        return;
    case 0xd8: /* DMACKSUM */
    case 0xda: /* DMACKSUMS */
    case 0xdc: /* DMACOPY */
    case 0xde: /* DMACOPYS */
        enc_start_command(s, op, ENCX24J600_CLASS_COMMAND);
        enc_set_econ1_bits(s, dma_mode,
                           ECON1_DMAST | ((op & 4) ? ECON1_DMACPY : 0) |
                           ((op & 2) ? ECON1_DMACSSD : 0));
        return;
    case 0xe0: /* FCDISABLE */
    case 0xe2: /* FCSINGLE */
    case 0xe4: /* FCMULTIPLE */
    case 0xe6: /* FCCLEAR */
        enc_start_command(s, op, ENCX24J600_CLASS_COMMAND);
        enc_set_econ1_bits(s, ECON1_FCOP_MASK, ((op >> 1) & 3) << 6);
        return;
    case 0xe8: /* ENABLERX */
        enc_start_command(s, op, ENCX24J600_CLASS_COMMAND);
        enc_set_econ1_bits(s, 0, ECON1_RXEN);
        return;
    case 0xea: /* DISABLERX */
        enc_start_command(s, op, ENCX24J600_CLASS_COMMAND);
        enc_set_econ1_bits(s, ECON1_RXEN, 0);
        return;
    case 0xec: /* SETEIE */
        enc_start_command(s, op, ENCX24J600_CLASS_COMMAND);
        sfr16_set(s, EIE, sfr16(s, EIE) | EIE_INTIE);
        enc_update(s);
        return;
    case 0xee: /* CLREIE */
        enc_start_command(s, op, ENCX24J600_CLASS_COMMAND);
        sfr16_set(s, EIE, sfr16(s, EIE) & ~EIE_INTIE);
        enc_update(s);
        return;
    default:
        break;
    }
    enc_start_command(s, op, ENCX24J600_CLASS_UNKNOWN);
    qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: unknown opcode 0x%02x\n", op);
    s->spi_state = SPI_IGNORE;
}

static int enc_sfr_op(uint8_t opcode)
{
    switch (opcode) {
    case 0x20:
        return OP_READ;
    case 0x22:
        return OP_WRITE;
    case 0x24:
        return OP_SET;
    case 0x26:
        return OP_CLR;
    }
    switch (opcode & 0xe0) {
    case 0x00:
        return OP_READ;
    case 0x40:
        return OP_WRITE;
    case 0x80:
        return OP_SET;
    case 0xa0:
        return OP_CLR;
    default:
        return OP_READ;
    }
}

/* The pointer register that an SRAM window or pointer opcode uses */
static unsigned enc_op_pointer(uint8_t op)
{
    static const unsigned window[] = {
        EGPRDPT, EGPWRPT, ERXRDPT, ERXWRPT, EUDARDPT, EUDAWRPT
    };
    static const unsigned ptr[] = {
        EGPRDPT, ERXRDPT, EUDARDPT, EGPWRPT, ERXWRPT, EUDAWRPT
    };

    /* (unsigned: a loaded state may pair any opcode with these states) */
    if (op >= 0x60) {
        return ptr[((unsigned)(op - 0x60) >> 2) % ARRAY_SIZE(ptr)];
    }
    return window[((unsigned)(op - 0x28) >> 1) % ARRAY_SIZE(window)];
}

static uint32_t enc_transfer(SSIPeripheral *ss, uint32_t tx)
{
    ENCX24J600State *s = ENCX24J600(ss);
    uint8_t val = tx, ret = 0;
    unsigned ptr_reg, p;
    int op;

    /* test machinery { */
    /* An absent chip leaves MISO pulled up and sees nothing */
    if (s->spi_absent) {
        return 0xff;
    }
    /* } test machinery */
    /*
     * Whatever the byte does, it comes after a TX frame or an MII
     * operation whose time is over, even if its timer has not run yet
     */
    enc_mii_settle(s);
    enc_tx_settle(s);
    /* (the SSI core calls this only while CS is asserted) */
    /* test machinery { */
    s->stats.bytes++;
    if (s->spi_state != SPI_OPCODE) {
        s->stats.cls[s->cls].bytes++;
    }
    /* } test machinery */

    switch (s->spi_state) {
    case SPI_OPCODE:
        enc_opcode(s, val);
        break;
    case SPI_RBSEL:
        ret = s->bank;
        s->spi_state = SPI_OPCODE;
        break;
    case SPI_PTR_LO:
    case SPI_PTR_HI:
        ptr_reg = enc_op_pointer(s->opcode);
        if (s->spi_state == SPI_PTR_HI) {
            ptr_reg++;
            s->spi_state = SPI_OPCODE;
        } else {
            s->spi_state = SPI_PTR_HI;
        }
        if (s->opcode & 2) {
            ret = s->sfr[ptr_reg];
            trace_encx24j600_sfr_read(ptr_reg, ret);
        } else {
            enc_sfr_write(s, ptr_reg, val, OP_WRITE);
        }
        break;
    case SPI_SFR:
        op = enc_sfr_op(s->opcode);
        p = (s->bank << 5) | (s->addr & 0x1f);
        if (op == OP_READ) {
            ret = enc_sfr_read(s, p);
            trace_encx24j600_sfr_read(p, ret);
        } else {
            enc_sfr_write(s, p, val, op);
        }
        /* Banked access wraps inside the 32-byte window */
        s->addr = (s->addr + 1) & 0x1f;
        break;
    case SPI_UADDR:
        s->addr = val;
        s->spi_state = SPI_USFR;
        break;
    case SPI_USFR:
        op = enc_sfr_op(s->opcode);
        if (op == OP_READ) {
            ret = enc_sfr_read(s, s->addr);
            trace_encx24j600_sfr_read(s->addr, ret);
        } else {
            enc_sfr_write(s, s->addr, val, op);
        }
        s->addr = s->addr >= ENCX24J600_SFR_SIZE - 1 ? 0 : s->addr + 1;
        break;
    case SPI_SRAM:
        ptr_reg = enc_op_pointer(s->opcode);
        p = sfr16(s, ptr_reg) & PTR_MASK;
        if (s->opcode & 2) {
            enc_sram_put(s, p, val);
        } else {
            ret = enc_sram_get(s, p);
        }
        trace_encx24j600_sram(ptr_reg, p, s->opcode & 2,
                              (s->opcode & 2) ? val : ret);
        sfr16_set(s, ptr_reg, enc_next_ptr(s, ptr_reg, p));
        break;
    case SPI_RESETTING:
        /* MISO is not driven: the bus's pull-up reads all ones */
        ret = 0xff;
        break;
    case SPI_IGNORE:
    default:
        break;
    }
    return ret;
}

/* Called by the SSI core when CS changes, before it records the level */
static int enc_set_cs(SSIPeripheral *ss, bool level)
{
    ENCX24J600State *s = ENCX24J600(ss);

    /* Every instruction ends, or is aborted, when CS changes */
    s->spi_state = SPI_OPCODE;
    enc_mac_lo_check(s);
    /* test machinery { */
    if (s->spi_absent) {
        /*
         * Counted apart (what a host does to a chip that is gone); a cycle
         * under way when the chip returns is lost
         */
        if (!level) {
            s->stats.absent_transactions++;
        }
        s->spi_state = SPI_IGNORE;
        return 0;
    }
    if (!level) {
        s->stats.transactions++;
        s->first_op = true;
    }
    /* } test machinery */
    if (!level && qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) < s->spi_ready_at) {
        if (s->reset_by_guest) {
            /* once per reset: a driver may poll */
            s->reset_by_guest = false;
            qemu_log_mask(LOG_GUEST_ERROR, "encx24j600: SPI cycle %" PRId64
                          " ns before the chip answers again after a reset:"
                          " ignored\n", s->spi_ready_at -
                          qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
        }
        s->spi_state = SPI_RESETTING;
        /* test machinery { */
        s->cls = ENCX24J600_CLASS_UNKNOWN;
        /* } test machinery */
    }
    return 0;
}

/* Link */

/*
 * QEMU's link going down drops the link at once; coming up, the partner
 * appears and the PHY negotiates with it first.
 */
static void enc_set_link(NetClientState *nc)
{
    ENCX24J600State *s = qemu_get_nic_opaque(nc);

    if (nc->link_down) {
        timer_del(s->autoneg_timer);
        enc_link_change(s, false);
        enc_update(s);
    } else if (!s->link_up && !timer_pending(s->autoneg_timer)) {
        enc_phy_restart(s);
    }
}

/* test machinery { */
/* Statistics */

static bool enc_visit_class(Visitor *v, const char *name,
                            ENCX24J600ClassStats *c, Error **errp)
{
    bool ok;

    if (!visit_start_struct(v, name, NULL, 0, errp)) {
        return false;
    }
    ok = visit_type_uint64(v, "transactions", &c->transactions, errp) &&
         visit_type_uint64(v, "commands", &c->commands, errp) &&
         visit_type_uint64(v, "bytes", &c->bytes, errp) &&
         visit_check_struct(v, errp);
    visit_end_struct(v, NULL);
    return ok;
}

static bool enc_visit_classes(Visitor *v, ENCX24J600Stats *st, Error **errp)
{
    bool ok = true;
    int i;

    if (!visit_start_struct(v, "classes", NULL, 0, errp)) {
        return false;
    }
    for (i = 0; ok && i < ENCX24J600_CLASS__MAX; i++) {
        ok = enc_visit_class(v, enc_class_name[i], &st->cls[i], errp);
    }
    ok = ok && visit_check_struct(v, errp);
    visit_end_struct(v, NULL);
    return ok;
}

static bool enc_visit_injected(Visitor *v, ENCX24J600Stats *st,
                               Error **errp)
{
    bool ok = true;
    int i;

    if (!visit_start_struct(v, "injected", NULL, 0, errp)) {
        return false;
    }
    for (i = 0; ok && i < ENCX24J600_FAULT__MAX; i++) {
        ok = visit_type_uint64(v, enc_fault_name[i], &st->injected[i], errp);
    }
    ok = ok && visit_check_struct(v, errp);
    visit_end_struct(v, NULL);
    return ok;
}

static void enc_get_stats(Object *obj, Visitor *v, const char *name,
                          void *opaque, Error **errp)
{
    ENCX24J600State *s = ENCX24J600(obj);
    ENCX24J600Stats st = s->stats;
    uint64_t injections = 0;
    bool ok;
    int i;

    /*
     * A frame whose wire time is over is counted whether its timer has
     * run or not (without sending it here: a getter changes nothing), so
     * a reading between two transactions sees every frame sent by then
     */
    if (timer_pending(s->tx_timer) &&
        qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) >=
        timer_expire_time_ns(s->tx_timer)) {
        st.tx_frames++;
    }

    for (i = 0; i < ENCX24J600_FAULT__MAX; i++) {
        injections += st.injected[i];
    }
    if (!visit_start_struct(v, name, NULL, 0, errp)) {
        return;
    }
    ok = visit_type_uint64(v, "transactions", &st.transactions, errp) &&
         visit_type_uint64(v, "bytes", &st.bytes, errp) &&
         visit_type_uint64(v, "rx-frames", &st.rx_frames, errp) &&
         visit_type_uint64(v, "rx-dropped", &st.rx_dropped, errp) &&
         visit_type_uint64(v, "rx-filtered", &st.rx_filtered, errp) &&
         visit_type_uint64(v, "rx-wire-dropped", &st.rx_wire_dropped,
                           errp) &&
         visit_type_uint64(v, "rx-wire-buffered", &st.rx_wire_buffered,
                           errp) &&
         visit_type_uint64(v, "rx-bad-fcs", &st.rx_bad_fcs, errp) &&
         visit_type_uint64(v, "mii-reads", &st.mii_reads, errp) &&
         visit_type_uint64(v, "mii-writes", &st.mii_writes, errp) &&
         visit_type_uint64(v, "eir-flags-lost", &st.eir_flags_lost, errp) &&
         visit_type_uint64(v, "absent-transactions",
                           &st.absent_transactions, errp) &&
         visit_type_uint64(v, "tx-frames", &st.tx_frames, errp) &&
         visit_type_uint64(v, "injections", &injections, errp) &&
         enc_visit_injected(v, &st, errp) &&
         enc_visit_classes(v, &st, errp);
    if (ok) {
        visit_check_struct(v, errp);
    }
    visit_end_struct(v, NULL);
}

static bool enc_get_reset_stats(Object *obj, Error **errp)
{
    return false;
}

static void enc_set_reset_stats(Object *obj, bool value, Error **errp)
{
    ENCX24J600State *s = ENCX24J600(obj);

    if (value) {
        memset(&s->stats, 0, sizeof(s->stats));
    }
}

/* Fault injection properties */

static char *enc_get_inject(Object *obj, Error **errp)
{
    return g_strdup("");
}

static void enc_set_inject(Object *obj, const char *value, Error **errp)
{
    ENCX24J600State *s = ENCX24J600(obj);
    g_autoptr(GString) valid = g_string_new("");
    int i;

    for (i = 0; i <= FAULT_INJECT_LAST; i++) {
        if (!strcmp(value, enc_fault_name[i])) {
            break;
        }
        g_string_append_printf(valid, "%s%s", i ? ", " : "",
                               enc_fault_name[i]);
    }
    if (i > FAULT_INJECT_LAST) {
        error_setg(errp, "unknown fault '%s' (valid faults: %s)", value,
                   valid->str);
        return;
    }
    trace_encx24j600_fault_armed(enc_fault_name[i]);
    if (i != ENCX24J600_FAULT_CHIP_RESET) {
        s->faults_armed |= BIT(i);
        return;
    }
    /* The chip resets itself at once, as SETETHRST would */
    enc_fault_count(s, i);
    if (DEVICE(obj)->realized) {
        enc_soft_reset(s, false);
        /* the host's reset, not the guest's: touching it early is no error */
        s->reset_by_guest = false;
    }
}

static bool enc_get_int_stuck(Object *obj, Error **errp)
{
    return ENCX24J600(obj)->int_stuck;
}

static void enc_set_int_stuck(Object *obj, bool value, Error **errp)
{
    ENCX24J600State *s = ENCX24J600(obj);

    if (value && !s->int_stuck) {
        enc_fault_count(s, ENCX24J600_FAULT_INT_STUCK);
    }
    s->int_stuck = value;
    if (DEVICE(obj)->realized) {
        enc_update(s);
    }
}

static bool enc_get_spi_absent(Object *obj, Error **errp)
{
    return ENCX24J600(obj)->spi_absent;
}

static void enc_set_spi_absent(Object *obj, bool value, Error **errp)
{
    ENCX24J600State *s = ENCX24J600(obj);

    if (value == s->spi_absent) {
        return;
    }
    if (value) {
        enc_fault_count(s, ENCX24J600_FAULT_SPI_ABSENT);
    }
    s->spi_absent = value;
    /* Whichever way, a chip-select cycle under way is lost to the chip */
    s->spi_state = SPI_IGNORE;
    s->mac_lo_valid = false;
}
/* } test machinery */

/* Device */

static NetClientInfo net_encx24j600_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .receive = enc_receive,
    .link_status_changed = enc_set_link,
};

static void enc_realize(SSIPeripheral *ss, Error **errp)
{
    ENCX24J600State *s = ENCX24J600(ss);
    DeviceState *dev = DEVICE(ss);

    /* test machinery { */
    if (s->wire_buffer_bytes > WIRE_BUFFER_BYTES_MAX) {
        error_setg(errp, "x-wire-buffer-bytes %u is above %" PRId64,
                   s->wire_buffer_bytes, WIRE_BUFFER_BYTES_MAX);
        return;
    }
    if (s->wire_buffer_bytes && !s->rx_pacing) {
        error_setg(errp, "x-wire-buffer-bytes needs x-rx-pacing=on: "
                   "without pacing no frame waits for the wire");
        return;
    }
    /* } test machinery */
    qdev_init_gpio_out(dev, &s->int_out, 1);
    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    s->nic = qemu_new_nic(&net_encx24j600_info, &s->conf,
                          object_get_typename(OBJECT(dev)), dev->id,
                          &dev->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    s->autoneg_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, enc_autoneg_done, s);
    s->tx_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, enc_tx_done, s);
    s->pause_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, enc_pause_end, s);
    s->fc_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, enc_fc_refresh, s);
    s->mii_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, enc_mii_done, s);
    /* test machinery { */
    s->rx_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, enc_rx_wire_free, s);
    QSIMPLEQ_INIT(&s->wire_buf);
    /* } test machinery */
}

static void enc_unrealize(DeviceState *dev)
{
    ENCX24J600State *s = ENCX24J600(dev);

    qemu_del_nic(s->nic);
    timer_free(s->autoneg_timer);
    timer_free(s->tx_timer);
    timer_free(s->pause_timer);
    timer_free(s->fc_timer);
    timer_free(s->mii_timer);
    /* test machinery { */
    timer_free(s->rx_timer);
    enc_wire_buf_drop(s, false);
    g_free(s->wire_mig);
    /* } test machinery */
}

/*
 * System reset (power-on), as QEMU's Resettable: the enter phase sets the
 * chip's state and touches nothing outside it; the hold phase drives the
 * INT pin to the level that state gives.
 */
static void enc_reset_enter(Object *obj, ResetType type)
{
    ENCX24J600State *s = ENCX24J600(obj);

    memset(s->sram, 0, sizeof(s->sram));
    s->spi_state = SPI_OPCODE;
    /* test machinery { */
    timer_del(s->rx_timer);
    s->rx_wire_free = 0;
    enc_wire_buf_drop(s, false);
    /* } test machinery */
    /* Powered up, the link is down until the PHY has negotiated it */
    s->link_up = false;
    enc_soft_reset(s, true);
}

static void enc_reset_hold(Object *obj, ResetType type)
{
    ENCX24J600State *s = ENCX24J600(obj);

    /* Drive the pin whatever its previous level */
    trace_encx24j600_int(!s->int_level);
    qemu_set_irq(s->int_out, s->int_level);
}

/* The reset's times count from its release */
static void enc_reset_exit(Object *obj, ResetType type)
{
    enc_reset_release(ENCX24J600(obj));
}

/* test machinery { */
static void enc_instance_init(Object *obj)
{
    object_property_add(obj, "x-spi-stats", "ENCX24J600Stats",
                        enc_get_stats, NULL, NULL, NULL);
    object_property_set_description(obj, "x-spi-stats",
                                    "SPI transaction and frame counters");
    object_property_add_bool(obj, "x-reset-stats", enc_get_reset_stats,
                             enc_set_reset_stats);
    object_property_set_description(obj, "x-reset-stats",
                                    "Write true to zero x-spi-stats");
    object_property_add_str(obj, "x-inject", enc_get_inject, enc_set_inject);
    object_property_set_description(obj, "x-inject",
                                    "Arm a one-shot fault (write-only)");
    object_property_add_bool(obj, "x-int-stuck", enc_get_int_stuck,
                             enc_set_int_stuck);
    object_property_set_description(obj, "x-int-stuck",
                                    "Hold the INT pin asserted");
    object_property_add_bool(obj, "x-spi-absent", enc_get_spi_absent,
                             enc_set_spi_absent);
    object_property_set_description(obj, "x-spi-absent",
                                    "The chip does not answer on SPI");
}
/* } test machinery */

/* test machinery { */
/*
 * The port buffer is migrated as one blob of frames, each a 32-bit
 * big-endian length and its bytes
 */
static int enc_pre_save(void *opaque)
{
    ENCX24J600State *s = opaque;
    ENCX24J600WireFrame *f;
    size_t n = 0;

    QSIMPLEQ_FOREACH(f, &s->wire_buf, next) {
        n += 4 + f->size;
    }
    g_free(s->wire_mig);
    s->wire_mig = g_malloc(MAX(n, 1));
    s->wire_mig_len = n;
    n = 0;
    QSIMPLEQ_FOREACH(f, &s->wire_buf, next) {
        stl_be_p(s->wire_mig + n, f->size);
        memcpy(s->wire_mig + n + 4, f->data, f->size);
        n += 4 + f->size;
    }
    return 0;
}

static int enc_post_save(void *opaque)
{
    ENCX24J600State *s = opaque;

    g_free(s->wire_mig);
    s->wire_mig = NULL;
    s->wire_mig_len = 0;
    return 0;
}

/* Rebuild the port buffer from the blob; what does not fit is dropped */
static void enc_wire_buf_load(ENCX24J600State *s)
{
    ENCX24J600WireFrame *f;
    uint32_t n = 0, size;

    enc_wire_buf_drop(s, false);
    while (s->wire_mig && s->wire_mig_len - n >= 4) {
        size = ldl_be_p(s->wire_mig + n);
        n += 4;
        if (size > s->wire_mig_len - n) {
            break;
        }
        if (enc_wire_frame_bytes(size) >
            s->wire_buffer_bytes - s->wire_buf_bytes) {
            trace_encx24j600_rx_wire_drop(size, s->wire_buf_bytes);
            s->stats.rx_wire_dropped++;
        } else {
            f = g_malloc(sizeof(*f) + size);
            f->size = size;
            memcpy(f->data, s->wire_mig + n, size);
            QSIMPLEQ_INSERT_TAIL(&s->wire_buf, f, next);
            s->wire_buf_bytes += enc_wire_frame_bytes(size);
        }
        n += size;
    }
    enc_post_save(s);
}

/*
 * The blob is no larger than any source's port buffer can be (each frame
 * takes at least its size and length field of it): a stream cannot make
 * the load allocate more.  What the destination's buffer does not hold,
 * enc_wire_buf_load() drops and counts.
 */
static bool enc_wire_mig_sane(void *opaque, int version_id)
{
    ENCX24J600State *s = opaque;

    return s->wire_mig_len <= WIRE_BUFFER_BYTES_MAX;
}

/* A frame waits in the port buffer, or the wire is busy */
static bool enc_wire_needed(void *opaque)
{
    ENCX24J600State *s = opaque;

    return !QSIMPLEQ_EMPTY(&s->wire_buf) ||
           s->rx_wire_free > qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static int enc_wire_post_load(void *opaque, int version_id)
{
    ENCX24J600State *s = opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    /* No frame is on the wire for longer than 64 KiB at 10 Mbit/s */
    s->rx_wire_free = MAX(MIN(s->rx_wire_free, now + 64 * KiB * 800), 0);
    enc_wire_buf_load(s);
    return 0;
}

static const VMStateDescription vmstate_encx24j600_wire = {
    .name = TYPE_ENCX24J600 "/wire",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = enc_wire_needed,
    .pre_save = enc_pre_save,
    .post_save = enc_post_save,
    .post_load = enc_wire_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_INT64(rx_wire_free, ENCX24J600State),
        VMSTATE_UINT32(wire_mig_len, ENCX24J600State),
        VMSTATE_VALIDATE("port buffer size", enc_wire_mig_sane),
        VMSTATE_VBUFFER_ALLOC_UINT32(wire_mig, ENCX24J600State, 0, NULL,
                                     wire_mig_len),
        VMSTATE_END_OF_LIST()
    }
};

/* Without the subsection the wire is free and the port buffer empty */
static int enc_pre_load(void *opaque)
{
    ENCX24J600State *s = opaque;

    enc_wire_buf_drop(s, false);
    s->rx_wire_free = 0;
    return 0;
}
/* } test machinery */

/* A timer restored from a stream fires no later than limit */
static void enc_bound_timer(QEMUTimer *t, int64_t limit)
{
    if (timer_pending(t) && timer_expire_time_ns(t) > limit) {
        timer_mod(t, limit);
    }
}

static int enc_post_load(void *opaque, int version_id)
{
    ENCX24J600State *s = opaque;
    int64_t now;

    if (s->spi_state > SPI_RESETTING ||
        s->mii_op > MII_OP_READ_UNANSWERED) {
        return -EINVAL;
    }
    /*
     * Times to come are at most their length from now (a stream cannot
     * make the chip or the PHY silent for ever, nor overflow a sum; a
     * reset held at the save loads as just released)
     */
    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    s->spi_ready_at = MIN(s->spi_ready_at, now + RESET_SPI_NS);
    s->phy_ready_at = MIN(s->phy_ready_at, now + RESET_PHY_NS);
    s->mii_busy_until = MIN(s->mii_busy_until, now + MII_BUSY_NS);
    /*
     * So are the timers: the frame on the wire leaves within the wire time
     * of the longest frame at 10 Mbit/s, the negotiation ends within the
     * destination's delay after the PHY is ready, the MII operation when
     * BUSY clears
     */
    enc_bound_timer(s->tx_timer, now + (ETH_PREAMBLE_LEN + PTR_MASK +
                                        ETH_FCS_LEN + ETH_IFG_LEN) *
                                       WIRE_BYTE_NS_10);
    enc_bound_timer(s->autoneg_timer, MAX(now, s->phy_ready_at) +
                    (int64_t)s->autoneg_delay_ms * SCALE_MS);
    enc_bound_timer(s->mii_timer, MAX(now, s->mii_busy_until));
    enc_bound_timer(s->pause_timer, now + (int64_t)UINT16_MAX *
                                    PAUSE_QUANTUM_BYTES * WIRE_BYTE_NS_10);
    enc_bound_timer(s->fc_timer, now + (int64_t)UINT16_MAX *
                                 PAUSE_QUANTUM_BYTES * WIRE_BYTE_NS_10);
    /*
     * A held frame is one asked for (TXRTS) with the MAC on and in no
     * other state; a frame held by a pause that is not there goes at once
     */
    if (!(sfr16(s, ECON1) & ECON1_TXRTS) || !(sfr16(s, ECON2) & ECON2_ETHEN) ||
        s->tx_waiting || timer_pending(s->tx_timer)) {
        s->tx_paused = false;
    }
    if (s->tx_paused && !timer_pending(s->pause_timer)) {
        timer_mod(s->pause_timer, now);
    }
    /* a PHY powered down has no link and does not negotiate */
    if (s->phy[PHCON1] & PHCON1_PSLEEP) {
        s->link_up = false;
        timer_del(s->autoneg_timer);
    }
    s->mii_reg &= 0x1f;
    s->tx_st &= PTR_MASK;
    s->tx_len &= PTR_MASK;
    s->bank &= 3;
    /*
     * QEMU's link follows the loaded PHY: down if no partner was there
     * (the link is down and no negotiation is under way)
     */
    if (s->nic && !(s->phy[PHCON1] & PHCON1_PSLEEP)) {
        qemu_get_queue(s->nic)->link_down = !s->link_up &&
                                            !timer_pending(s->autoneg_timer);
    }
    /* test machinery { */
    /*
     * The statistics are the destination's: the rest of a command under
     * way at the save counts as unknown
     */
    s->cls = ENCX24J600_CLASS_UNKNOWN;
    /*
     * Nor what the guest read of EIR: a flag of the loaded state that was
     * raised unread before the save is not counted when cleared.
     */
    s->eir_unread = 0;
    /*
     * Nor is int-stuck: the timer re-evaluates the INT pin once the
     * machine runs, in case the source held it stuck, and goes on with
     * the port buffer.
     */
    timer_mod(s->rx_timer, 0);
    /* } test machinery */
    return 0;
}

/*
 * Flow control: a received PAUSE holding transmission and the frame it
 * holds; flow control asserted towards the partner
 */
static bool enc_flow_control_needed(void *opaque)
{
    ENCX24J600State *s = opaque;

    return timer_pending(s->pause_timer) || s->tx_paused ||
           timer_pending(s->fc_timer) || s->autofc_on;
}

static const VMStateDescription vmstate_encx24j600_flow_control = {
    .name = TYPE_ENCX24J600 "/flow-control",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = enc_flow_control_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_TIMER_PTR(pause_timer, ENCX24J600State),
        VMSTATE_BOOL(tx_paused, ENCX24J600State),
        VMSTATE_TIMER_PTR(fc_timer, ENCX24J600State),
        VMSTATE_BOOL(autofc_on, ENCX24J600State),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_encx24j600 = {
    .name = TYPE_ENCX24J600,
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = enc_post_load,
    /* test machinery { */
    .pre_load = enc_pre_load,
    /* } test machinery */
    .fields = (const VMStateField[]) {
        VMSTATE_SSI_PERIPHERAL(parent_obj, ENCX24J600State),
        VMSTATE_UINT8_ARRAY(sram, ENCX24J600State, ENCX24J600_SRAM_SIZE),
        VMSTATE_UINT8_ARRAY(sfr, ENCX24J600State, ENCX24J600_SFR_SIZE),
        VMSTATE_UINT16_ARRAY(phy, ENCX24J600State, ENCX24J600_PHY_REGS),
        VMSTATE_UINT8(bank, ENCX24J600State),
        VMSTATE_UINT8(pktcnt, ENCX24J600State),
        VMSTATE_UINT8(erxheadh, ENCX24J600State),
        VMSTATE_BOOL(link_up, ENCX24J600State),
        VMSTATE_BOOL(link_full, ENCX24J600State),
        VMSTATE_BOOL(link_fast, ENCX24J600State),
        /*
         * (the qtest vmstate-timer-bounds finds these two timers and the
         * frame after them by their offset from the end of the SRAM)
         */
        VMSTATE_TIMER_PTR(autoneg_timer, ENCX24J600State),
        VMSTATE_TIMER_PTR(tx_timer, ENCX24J600State),
        VMSTATE_UINT16(tx_st, ENCX24J600State),
        VMSTATE_UINT16(tx_len, ENCX24J600State),
        VMSTATE_BOOL(tx_waiting, ENCX24J600State),
        VMSTATE_BOOL(llstat_low, ENCX24J600State),
        VMSTATE_BOOL(int_level, ENCX24J600State),
        VMSTATE_INT64(spi_ready_at, ENCX24J600State),
        VMSTATE_INT64(phy_ready_at, ENCX24J600State),
        VMSTATE_UINT8(spi_state, ENCX24J600State),
        VMSTATE_UINT8(opcode, ENCX24J600State),
        VMSTATE_UINT8(addr, ENCX24J600State),
        VMSTATE_UINT8(mac_lo, ENCX24J600State),
        VMSTATE_UINT8(mac_lo_addr, ENCX24J600State),
        VMSTATE_BOOL(mac_lo_valid, ENCX24J600State),
        VMSTATE_INT64(mii_busy_until, ENCX24J600State),
        VMSTATE_TIMER_PTR(mii_timer, ENCX24J600State),
        VMSTATE_UINT8(mii_op, ENCX24J600State),
        VMSTATE_UINT8(mii_reg, ENCX24J600State),
        VMSTATE_UINT16(mii_val, ENCX24J600State),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_encx24j600_flow_control,
        /* test machinery { */
        &vmstate_encx24j600_wire,
        /* } test machinery */
        NULL
    }
};

static const Property enc_properties[] = {
    DEFINE_NIC_PROPERTIES(ENCX24J600State, conf),
    DEFINE_PROP_UINT32("x-autoneg-delay-ms", ENCX24J600State,
                       autoneg_delay_ms, AUTONEG_DELAY_MS_DEFAULT),
    /* test machinery { */
    DEFINE_PROP_BOOL("x-rx-pacing", ENCX24J600State, rx_pacing, false),
    DEFINE_PROP_UINT32("x-wire-buffer-bytes", ENCX24J600State,
                       wire_buffer_bytes, 0),
    DEFINE_PROP_BOOL("x-rx-fcs", ENCX24J600State, rx_fcs, false),
    DEFINE_PROP_BOOL("x-factory-mac-blank", ENCX24J600State,
                     factory_mac_blank, false),
    /* } test machinery */
};

static void enc_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    SSIPeripheralClass *k = SSI_PERIPHERAL_CLASS(klass);

    k->realize = enc_realize;
    k->transfer = enc_transfer;
    k->set_cs = enc_set_cs;
    k->cs_polarity = SSI_CS_LOW;
    dc->unrealize = enc_unrealize;
    rc->phases.enter = enc_reset_enter;
    rc->phases.hold = enc_reset_hold;
    rc->phases.exit = enc_reset_exit;
    dc->vmsd = &vmstate_encx24j600;
    dc->desc = "Microchip ENCX24J600 SPI Ethernet controller";
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
    device_class_set_props(dc, enc_properties);
}

static const TypeInfo encx24j600_info = {
    .name = TYPE_ENCX24J600,
    .parent = TYPE_SSI_PERIPHERAL,
    .instance_size = sizeof(ENCX24J600State),
    /* test machinery { */
    .instance_init = enc_instance_init,
    /* } test machinery */
    .class_init = enc_class_init,
};

static void encx24j600_register_types(void)
{
    type_register_static(&encx24j600_info);
}

type_init(encx24j600_register_types)
