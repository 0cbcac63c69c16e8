"""The Java project: `com.acme.billing`, invoices and money with a JUnit test, a
Maven pom and a CRLF messages.properties.
"""
from __future__ import annotations

from .fixtures import F


JAVA_PKG = "src/main/java/com/acme/billing"
JAVA_TEST = "src/test/java/com/acme/billing"
JAVA_FILES = {
    "pom.xml": F(r'''
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>billing</artifactId>
  <version>3.1.0</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.10.1</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
</project>
'''),
    f"{JAVA_PKG}/Money.java": F(r'''
package com.acme.billing;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Objects;

/** An amount of money in a single currency. Immutable. */
public final class Money implements Comparable<Money> {
    private final BigDecimal amount;
    private final String currency;

    public Money(BigDecimal amount, String currency) {
        this.amount = Objects.requireNonNull(amount, "amount").setScale(2, RoundingMode.HALF_EVEN);
        this.currency = Objects.requireNonNull(currency, "currency");
    }

    public static Money of(String amount, String currency) {
        return new Money(new BigDecimal(amount), currency);
    }

    public static Money zero(String currency) {
        return new Money(BigDecimal.ZERO, currency);
    }

    public BigDecimal amount() {
        return amount;
    }

    public String currency() {
        return currency;
    }

    /**
     * Returns the sum of this and other.
     * @throws IllegalArgumentException if the currencys differ
     */
    public Money add(Money other) {
        requireSameCurrency(other);
        return new Money(amount.add(other.amount), currency);
    }

    public Money multiply(BigDecimal factor) {
        return new Money(amount.multiply(factor), currency);
    }

    private void requireSameCurrency(Money other) {
        if (!currency.equals(other.currency)) {
            throw new IllegalArgumentException(currency + " != " + other.currency);
        }
    }

    @Override
    public int compareTo(Money other) {
        requireSameCurrency(other);
        return amount.compareTo(other.amount);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Money m)) {
            return false;
        }
        return amount.equals(m.amount) && currency.equals(m.currency);
    }

    @Override
    public int hashCode() {
        return Objects.hash(amount, currency);
    }

    @Override
    public String toString() {
        return amount.toPlainString() + " " + currency;
    }
}
'''),
    f"{JAVA_PKG}/Invoice.java": F(r'''
package com.acme.billing;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

public class Invoice {
    public record Line(String description, int quantity, Money unitPrice) {
        public Money total() {
            return unitPrice.multiply(java.math.BigDecimal.valueOf(quantity));
        }
    }

    private final String id;
    private final String customerId;
    private final LocalDate dueDate;
    private final List<Line> lines = new ArrayList<>();
    private boolean paid;

    public Invoice(String id, String customerId, LocalDate dueDate) {
        this.id = id;
        this.customerId = customerId;
        this.dueDate = dueDate;
    }

    public String getId() {
        return id;
    }

    public String getCustomerId() {
        return customerId;
    }

    public LocalDate getDueDate() {
        return dueDate;
    }

    public List<Line> getLines() {
        return Collections.unmodifiableList(lines);
    }

    public void addLine(Line line) {
        if (paid) {
            throw new IllegalStateException("invoice " + id + " is already paid");
        }
        lines.add(line);
    }

    public Money total(String currency) {
        Money sum = Money.zero(currency);
        for (Line line : lines) {
            sum = sum.add(line.total());
        }
        return sum;
    }

    public boolean isPaid() {
        return paid;
    }

    public void markPaid() {
        this.paid = true;
    }

    public boolean isOverdue(LocalDate today) {
        return !paid && today.isAfter(dueDate);
    }
}
'''),
    f"{JAVA_PKG}/InvoiceService.java": F(r'''
package com.acme.billing;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

public class InvoiceService {
    private final Map<String, Invoice> invoices = new HashMap<>();
    private final String currency;

    public InvoiceService(String currency) {
        this.currency = currency;
    }

    public Invoice create(String id, String customerId, LocalDate dueDate) {
        if (invoices.containsKey(id)) {
            throw new IllegalArgumentException("duplicate invoice id " + id);
        }
        Invoice invoice = new Invoice(id, customerId, dueDate);
        invoices.put(id, invoice);
        return invoice;
    }

    public Optional<Invoice> find(String id) {
        return Optional.ofNullable(invoices.get(id));
    }

    public Money applyDiscount(String invoiceId, BigDecimal percent) {
        Invoice invoice = invoices.get(invoiceId);
        Money total = invoice.total(currency);
        BigDecimal factor = BigDecimal.ONE.subtract(percent.movePointLeft(2));
        return total.multiply(factor);
    }

    public List<Invoice> overdue(LocalDate today) {
        return invoices.values().stream()
                .filter(inv -> inv.isOverdue(today))
                .sorted((a, b) -> a.getDueDate().compareTo(b.getDueDate()))
                .collect(Collectors.toList());
    }

    public void pay(String invoiceId) {
        Invoice invoice = invoices.get(invoiceId);
        invoice.markPaid();
    }
}
'''),
    f"{JAVA_TEST}/InvoiceServiceTest.java": F(r'''
package com.acme.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.LocalDate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class InvoiceServiceTest {
    private InvoiceService service;

    @BeforeEach
    void setUp() {
        service = new InvoiceService("EUR");
        Invoice inv = service.create("INV-1", "C-1", LocalDate.of(2024, 1, 31));
        inv.addLine(new Invoice.Line("Consulting", 2, Money.of("150.00", "EUR")));
    }

    @Test
    void discountReducesTotal() {
        Money discounted = service.applyDiscount("INV-1", new BigDecimal("10"));
        assertEquals(Money.of("270.00", "EUR"), discounted);
    }

    @Test
    void duplicateIdsAreRejected() {
        assertThrows(IllegalArgumentException.class,
                () -> service.create("INV-1", "C-2", LocalDate.of(2024, 2, 1)));
    }

    @Test
    void overdueListsUnpaidPastDue() {
        assertTrue(service.overdue(LocalDate.of(2024, 2, 15)).stream()
                .anyMatch(i -> i.getId().equals("INV-1")));
        service.pay("INV-1");
        assertTrue(service.overdue(LocalDate.of(2024, 2, 15)).isEmpty());
    }
}
'''),
    "src/main/resources/messages.properties": (
        "# Billing UI messages (edited on Windows, keep CRLF)\r\n"
        "invoice.title=Invoice {0}\r\n"
        "invoice.customer=Customer\r\n"
        "invoice.due=Due date\r\n"
        "invoice.total=Total\r\n"
        "invoice.paid=Paid\r\n"
        "invoice.unpaid=Open\r\n"
        "invoice.line.description=Description\r\n"
        "invoice.line.quantity=Qty\r\n"
        "invoice.line.unitPrice=Unit price\r\n"
        "invoice.line.total=Line total\r\n"
        "discount.applied=Discount of {0}% applied\r\n"
        "error.duplicate=An invoice with id {0} already exists\r\n"
        "error.notFound=Invoice {0} not found\r\n"
        "error.currency=Currencies {0} and {1} cannot be mixed\r\n"
        "button.pay=Mark as paid\r\n"
        "button.download=Download PDF\r\n"
        "button.send=Send to customer\r\n"
        "footer.thanks=Thank you for your business\r\n"
        "footer.terms=Payment terms: 30 days net\r\n"
        "footer.contact=Questions? billing@acme.test\r\n"
    ),
}
