/*
 * Microchip ENCX24J600 (ENC424J600/ENC624J600) SPI Ethernet controller
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_ENCX24J600_H
#define HW_NET_ENCX24J600_H

#include "hw/ssi/ssi.h"
#include "net/net.h"
#include "qom/object.h"
/* test machinery { */
#include "qemu/queue.h"
/* } test machinery */

#define TYPE_ENCX24J600 "encx24j600"
OBJECT_DECLARE_SIMPLE_TYPE(ENCX24J600State, ENCX24J600)

/* Size of the on-chip SRAM and of the SFR address space */
#define ENCX24J600_SRAM_SIZE    0x6000
#define ENCX24J600_SFR_SIZE     0xa0
#define ENCX24J600_PHY_REGS     32

/* Opcode classes used by the SPI transaction accounting */
typedef enum ENCX24J600Class {
    ENCX24J600_CLASS_BANK_SELECT,
    ENCX24J600_CLASS_RBSEL,
    ENCX24J600_CLASS_COMMAND,
    ENCX24J600_CLASS_POINTER_READ,
    ENCX24J600_CLASS_POINTER_WRITE,
    ENCX24J600_CLASS_RCR,
    ENCX24J600_CLASS_WCR,
    ENCX24J600_CLASS_BFS,
    ENCX24J600_CLASS_BFC,
    ENCX24J600_CLASS_RCRU,
    ENCX24J600_CLASS_WCRU,
    ENCX24J600_CLASS_BFSU,
    ENCX24J600_CLASS_BFCU,
    ENCX24J600_CLASS_SRAM_READ,
    ENCX24J600_CLASS_SRAM_WRITE,
    ENCX24J600_CLASS_UNKNOWN,
    ENCX24J600_CLASS__MAX,
} ENCX24J600Class;

/* test machinery { */
/* Faults the host can inject (properties "x-inject", "x-int-stuck", ...) */
typedef enum ENCX24J600Fault {
    ENCX24J600_FAULT_RX_BAD_RSV,
    ENCX24J600_FAULT_RX_NEXT_ODD,
    ENCX24J600_FAULT_RX_NEXT_OUTSIDE,
    ENCX24J600_FAULT_RX_PAST_HEAD,
    ENCX24J600_FAULT_TX_ABORT,
    ENCX24J600_FAULT_TX_LINK_LOSS,
    ENCX24J600_FAULT_CHIP_RESET,
    ENCX24J600_FAULT_INT_STUCK,
    ENCX24J600_FAULT_SPI_ABSENT,
    ENCX24J600_FAULT__MAX,
} ENCX24J600Fault;

typedef struct ENCX24J600ClassStats {
    uint64_t transactions;
    uint64_t commands;
    uint64_t bytes;
} ENCX24J600ClassStats;

typedef struct ENCX24J600Stats {
    uint64_t transactions;
    uint64_t bytes;
    uint64_t rx_frames;
    uint64_t rx_dropped;
    uint64_t rx_filtered;
    uint64_t tx_frames;
    uint64_t rx_wire_dropped;
    uint64_t rx_wire_buffered;  /* frames that waited in the port buffer */
    uint64_t rx_bad_fcs;        /* frames whose own FCS did not match */
    uint64_t mii_reads;         /* PHY reads started (MICMD.MIIRD set) */
    uint64_t mii_writes;        /* PHY writes started (MIWR written) */
    uint64_t eir_flags_lost;    /* EIR flags cleared unread by the host */
    uint64_t absent_transactions; /* CS cycles while "spi-absent" */
    uint64_t injected[ENCX24J600_FAULT__MAX];
    ENCX24J600ClassStats cls[ENCX24J600_CLASS__MAX];
} ENCX24J600Stats;

/* A frame waiting in the link partner's port buffer */
typedef struct ENCX24J600WireFrame {
    QSIMPLEQ_ENTRY(ENCX24J600WireFrame) next;
    size_t size;
    uint8_t data[];
} ENCX24J600WireFrame;
/* } test machinery */

struct ENCX24J600State {
    SSIPeripheral parent_obj;

    NICState *nic;
    NICConf conf;
    qemu_irq int_out;

    /* Chip state */
    uint8_t sram[ENCX24J600_SRAM_SIZE];
    uint8_t sfr[ENCX24J600_SFR_SIZE];
    uint16_t phy[ENCX24J600_PHY_REGS];
    uint8_t bank;
    uint8_t pktcnt;
    uint8_t erxheadh;       /* ERXHEADH as latched by a read of ERXHEADL */
    bool link_up;           /* PHY link: ESTAT.PHYLNK */
    bool link_full;         /* negotiated (or forced) mode of the link */
    bool link_fast;
    bool llstat_low;        /* PHSTAT1.LLSTAT latched low since last read */
    bool int_level;         /* current level of the INT pin */
    int64_t spi_ready_at;   /* QEMU_CLOCK_VIRTUAL: the SPI answers from then */
    int64_t phy_ready_at;   /* and the PHY (ESTAT.PHYRDY) from then */
    /* log SPI before spi_ready_at: not after power-on; not migrated */
    bool reset_by_guest;
    int64_t mii_busy_until; /* MISTAT.BUSY until this QEMU_CLOCK_VIRTUAL */
    QEMUTimer *mii_timer;   /* ends the MII operation under way */
    /* that operation: none, read, write, or a read the PHY cannot answer */
    uint8_t mii_op;
    uint8_t mii_reg;        /* its PHY register */
    uint16_t mii_val;       /* the value a write writes */
    QEMUTimer *autoneg_timer;   /* pending while the PHY negotiates */
    QEMUTimer *tx_timer;    /* pending while a frame is on the wire */
    uint16_t tx_st;         /* ETXST and ETXLEN of that frame */
    uint16_t tx_len;
    bool tx_waiting;        /* that frame waits for the link */
    QEMUTimer *pause_timer; /* pending while a received PAUSE holds TX */
    bool tx_paused;         /* that frame waits for the pause to end */
    QEMUTimer *fc_timer;    /* the next PAUSE while flow control is on */
    bool autofc_on;         /* AUTOFC: the ring passed the high watermark */
    uint8_t duplex_logged;  /* the duplex state last logged, not migrated */
    uint32_t autoneg_delay_ms;  /* property: time to (re)establish the link */

    /* SPI state machine (the chip select level is the SSI core's) */
    uint8_t spi_state;
    uint8_t opcode;
    uint8_t addr;
    uint8_t mac_lo;         /* MAC/MII low byte waiting for its high byte */
    uint8_t mac_lo_addr;
    bool mac_lo_valid;

    /* test machinery { */
    /* the class the cycle's bytes count under: statistics, not migrated */
    uint8_t cls;
    bool rx_fcs;            /* property: backend frames carry their FCS */
    bool factory_mac_blank; /* property: MAADR resets to zero */
    /*
     * EIR flags raised since the host last read them, for the
     * eir-flags-lost count only: not migrated (cleared by a load)
     */
    uint16_t eir_unread;

    /* Receive wire and the link partner's port buffer (migrated) */
    bool rx_pacing;         /* property: frames arrive at the link speed */
    QEMUTimer *rx_timer;    /* takes the next frame when the wire is free */
    int64_t rx_wire_free;   /* QEMU_CLOCK_VIRTUAL when the last frame ends */
    QSIMPLEQ_HEAD(, ENCX24J600WireFrame) wire_buf;
    uint32_t wire_buf_bytes;    /* bytes held in wire_buf */
    uint32_t wire_buffer_bytes; /* property: size of the port buffer */
    uint8_t *wire_mig;      /* the port buffer as migrated (see pre_save) */
    uint32_t wire_mig_len;

    /* Fault injection (host side, not migrated) */
    uint32_t faults_armed;  /* one-shot faults, bit n = ENCX24J600Fault n */
    bool int_stuck;         /* INT held asserted */
    bool spi_absent;        /* the chip does not answer on SPI */

    /* Transaction accounting, not migrated */
    bool first_op;          /* the next command starts a CS cycle */
    ENCX24J600Stats stats;
    /* } test machinery */
};

#endif
